import * as React from 'react';
import { Box, Button, Flex, Typography } from '@strapi/design-system';
import { Check } from '@strapi/icons';
import { Layouts, useNotification } from '@strapi/strapi/admin';
import type { EditableSettings, SettingsData } from '../../../shared/contracts/admin';
import { useSaveSettings } from '../hooks/useSaveSettings';
import { useTranslate } from '../hooks/useTranslate';
import { toFieldErrors, validateSettingsForm, type FieldErrors } from '../utils/settings-form';
import { ContentTypeSettingsCard } from './ContentTypeSettingsCard';
import { DiscoverySection } from './DiscoverySection';
import { OperationsSection } from './OperationsSection';
import { SectionCard } from './SectionCard';
import { SiteDefaultsSection } from './SiteDefaultsSection';
import { WebhookSubscribersSection } from './WebhookSubscribersSection';

const FORM_ID = 'sitemap-ai-settings';

interface SettingsFormProps {
  data: SettingsData;
  canUpdate: boolean;
  onSaved: (data: SettingsData) => void;
}

/**
 * The site owner's Settings (README › In the admin): validated in the browser with the
 * server's own schema, saved with PUT /sitemap-ai/settings; the server's
 * field errors show next to their fields. Read-only without settings.update.
 */
export function SettingsForm({ data, canUpdate, onSaved }: SettingsFormProps) {
  const t = useTranslate();
  const { toggleNotification } = useNotification();
  const { save, saving } = useSaveSettings();
  const [draft, setDraft] = React.useState<EditableSettings>(data.settings);
  const [errors, setErrors] = React.useState<FieldErrors>({});
  const disabled = !canUpdate || saving;
  const modified = React.useMemo(
    () => JSON.stringify(draft) !== JSON.stringify(data.settings),
    [draft, data.settings],
  );

  // New stored settings (after a save or a reload) replace the draft, adjusted during render.
  const [shown, setShown] = React.useState(data.settings);
  if (shown !== data.settings) {
    setShown(data.settings);
    setDraft(data.settings);
  }

  const change = (next: EditableSettings) => {
    setDraft(next);
    // Re-check only fields already flagged, so errors clear as they are fixed without shouting early.
    if (Object.keys(errors).length > 0) {
      const now = validateSettingsForm(next);
      setErrors(Object.fromEntries(Object.entries(now).filter(([key]) => key in errors)));
    }
  };

  const submit = async (event: React.FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (!canUpdate) return;
    const invalid = validateSettingsForm(draft);
    if (Object.keys(invalid).length > 0) {
      setErrors(invalid);
      toggleNotification({ type: 'danger', message: t('settings.invalid') });
      return;
    }
    const outcome = await save(draft);
    if (outcome.ok) {
      setErrors({});
      onSaved(outcome.data);
      toggleNotification({ type: 'success', message: t('settings.saved') });
      return;
    }
    const { error } = outcome;
    if (error.fieldErrors.length > 0) {
      setErrors(toFieldErrors(error.fieldErrors));
      toggleNotification({ type: 'danger', message: t('settings.invalid') });
    } else {
      toggleNotification({
        type: 'danger',
        message:
          error.status === 404
            ? t('error.notAvailable')
            : t('settings.saveFailed', { message: error.message }),
      });
    }
  };

  const typeUids = [
    ...data.availableTypes.map((type) => type.uid),
    ...Object.keys(draft.contentTypes).filter(
      (uid) => !data.availableTypes.some((type) => type.uid === uid),
    ),
  ];
  const displayName = (uid: string) =>
    data.availableTypes.find((type) => type.uid === uid)?.displayName ?? uid;
  const errorCount = Object.keys(errors).length;

  return (
    <form id={FORM_ID} onSubmit={submit} noValidate>
      <Layouts.Header
        title={t('plugin.name')}
        subtitle={t('settings.subtitle')}
        primaryAction={
          canUpdate ? (
            <Button
              type="submit"
              startIcon={<Check />}
              loading={saving}
              disabled={!modified || saving}
            >
              {t('settings.save')}
            </Button>
          ) : null
        }
      />
      <Layouts.Content>
        <Flex direction="column" alignItems="stretch" gap={6}>
          {canUpdate ? null : (
            <Box padding={4} hasRadius background="neutral0" borderColor="neutral200" role="status">
              <Typography variant="pi" textColor="neutral600">
                {t('settings.readOnly')}
              </Typography>
            </Box>
          )}
          {errorCount > 0 ? (
            <Box padding={4} hasRadius background="danger100" borderColor="danger200" role="alert">
              <Typography variant="pi" fontWeight="bold" textColor="danger700">
                {t('settings.errorCount', { count: errorCount })}
              </Typography>
            </Box>
          ) : null}

          <SiteDefaultsSection
            settings={draft}
            licenses={data.licenses}
            onChange={change}
            errors={errors}
            disabled={disabled}
          />

          <SectionCard
            title={t('settings.types.title')}
            description={t('settings.types.description')}
          >
            {typeUids.length === 0 ? (
              <Typography variant="pi" textColor="neutral600">
                {t('settings.types.empty')}
              </Typography>
            ) : null}
            {typeUids.map((uid) => (
              <ContentTypeSettingsCard
                key={uid}
                uid={uid}
                displayName={displayName(uid)}
                value={draft.contentTypes[uid]}
                defaults={draft.defaults}
                licenses={data.licenses}
                onChange={(value) =>
                  change({ ...draft, contentTypes: { ...draft.contentTypes, [uid]: value } })
                }
                errors={errors}
                disabled={disabled}
              />
            ))}
          </SectionCard>

          <DiscoverySection
            value={draft.discovery}
            crawlers={data.crawlers}
            onChange={(discovery) => change({ ...draft, discovery })}
            errors={errors}
            disabled={disabled}
            canPreview={canUpdate}
          />

          <OperationsSection
            settings={draft}
            onChange={change}
            errors={errors}
            disabled={disabled}
          />

          <WebhookSubscribersSection
            subscribers={draft.webhooks.subscribers}
            onChange={(subscribers) =>
              change({ ...draft, webhooks: { ...draft.webhooks, subscribers } })
            }
            errors={errors}
            disabled={disabled}
          />

          <Typography variant="pi" textColor="neutral600">
            {data.updatedAt
              ? t('settings.updatedAt', { date: new Date(data.updatedAt) })
              : t('settings.fileOnly')}
          </Typography>
        </Flex>
      </Layouts.Content>
    </form>
  );
}
