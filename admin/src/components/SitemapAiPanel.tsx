import * as React from 'react';
import { useQueryParams, useRBAC } from '@strapi/strapi/admin';
import type { PanelComponent, PanelComponentProps } from '@strapi/content-manager/strapi-admin';
import { useEnabledContentTypes } from '../hooks/useEnabledContentTypes';
import { useEntryPanelData } from '../hooks/useEntryPanelData';
import { useTranslate } from '../hooks/useTranslate';
import { PERMISSIONS } from '../permissions';
import { EntryPanel } from './EntryPanel';

type LocaleQuery = { plugins?: { i18n?: { locale?: string } } };

/**
 * The Content Manager's edit-view side panel (a description component: it may
 * use hooks and returns `{ title, content }` or null). Shown only for indexed
 * content types and to users who may edit the AI fields.
 *
 * The Content Manager's schemas leave out the plugin's hidden `sitemapAi`
 * attribute, so whether the type is indexed is asked of the server
 * (GET /sitemap-ai/content-types); the panel data is then asked for a saved entry, and a 404
 * `NotFoundError` means it has no draft in this locale yet (the panel, with a "save first" note).
 */
export const SitemapAiPanel: PanelComponent = ({
  model,
  documentId,
  document,
  activeTab,
}: PanelComponentProps) => {
  const t = useTranslate();
  const { allowedActions, isLoading: rbacLoading } = useRBAC(PERMISSIONS.editFields);
  const [{ query }] = useQueryParams<LocaleQuery>();
  const canEdit = allowedActions.canEdit === true;

  const stored = (document as Record<string, unknown> | undefined)?.sitemapAi;
  const documentLocale = (document as { locale?: unknown } | undefined)?.locale;
  const locale =
    typeof documentLocale === 'string' ? documentLocale : (query.plugins?.i18n?.locale ?? null);

  const types = useEnabledContentTypes(canEdit);
  const indexed = types.data?.some((type) => type.uid === model) === true;
  const panel = useEntryPanelData(indexed ? model : null, documentId, locale);

  // Fragments are those of the saved draft: ask again after each save.
  const updatedAt = (document as { updatedAt?: unknown } | undefined)?.updatedAt;
  const { reload } = panel;
  const lastUpdatedAt = React.useRef(updatedAt);
  React.useEffect(() => {
    if (lastUpdatedAt.current !== updatedAt) {
      lastUpdatedAt.current = updatedAt;
      reload();
    }
  }, [updatedAt, reload]);

  // No panel for a type that is not indexed (nor while that is not known yet).
  if (rbacLoading || !canEdit || !indexed) return null;
  const { error } = panel;
  // 403: this user may not read the type in the Content Manager.
  if (error?.status === 403) return null;
  // Strapi answers an unknown route with a bare "Not Found": that is an old server, not an unsaved entry.
  const noDraftYet =
    error?.status === 404 && error.name === 'NotFoundError' && error.message !== 'Not Found';
  const unsaved = documentId === undefined || noDraftYet;

  return {
    title: t('panel.title'),
    content: (
      <EntryPanel
        unsaved={unsaved}
        stored={stored}
        data={panel.data}
        loading={panel.status === 'loading'}
        error={noDraftYet ? undefined : error}
        onRetry={reload}
        readOnly={activeTab === 'published'}
      />
    ),
  };
};
