import * as React from 'react';
import { Layouts, Page, useRBAC } from '@strapi/strapi/admin';
import type { SettingsData } from '../../../shared/contracts/admin';
import { RequestErrorState } from '../components/RequestErrorState';
import { SettingsForm } from '../components/SettingsForm';
import { useSettingsData } from '../hooks/useSettingsData';
import { useTranslate } from '../hooks/useTranslate';
import { PERMISSIONS } from '../permissions';

/** Settings → Sitemap AI → Configuration (lazy-loaded, settings.read). */
function SettingsView() {
  const t = useTranslate();
  const { allowedActions, isLoading: rbacLoading } = useRBAC(PERMISSIONS.updateSettings);
  const request = useSettingsData();
  const [saved, setSaved] = React.useState<SettingsData | null>(null);
  const data = saved ?? request.data;

  if (request.status === 'error' && request.error) {
    return (
      <>
        <Layouts.Header title={t('plugin.name')} subtitle={t('settings.subtitle')} />
        <Layouts.Content>
          <RequestErrorState
            title={t('settings.loadError')}
            error={request.error}
            onRetry={request.reload}
          />
        </Layouts.Content>
      </>
    );
  }
  if (rbacLoading || !data) return <Page.Loading />;
  return (
    <SettingsForm data={data} canUpdate={allowedActions.canUpdate === true} onSaved={setSaved} />
  );
}

export default function SettingsPage() {
  const t = useTranslate();
  return (
    <Page.Protect permissions={PERMISSIONS.readSettings}>
      <Page.Main>
        <Page.Title>{t('settings.pageTitle')}</Page.Title>
        <SettingsView />
      </Page.Main>
    </Page.Protect>
  );
}
