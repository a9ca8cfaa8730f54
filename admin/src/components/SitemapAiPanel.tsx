import * as React from 'react';
import { useQueryParams, useRBAC } from '@strapi/strapi/admin';
import type { PanelComponent, PanelComponentProps } from '@strapi/content-manager/strapi-admin';
import { useEntryPanelData } from '../hooks/useEntryPanelData';
import { useTranslate } from '../hooks/useTranslate';
import { PERMISSIONS } from '../permissions';
import { EntryPanel } from './EntryPanel';

type LocaleQuery = { plugins?: { i18n?: { locale?: string } } };

/**
 * Asked for instead of a document id while the entry is being created: the
 * server checks the content type (400 when it is not indexed) before it looks
 * the document up (404), so a 404 says "indexed, not saved yet".
 */
const UNSAVED_DOCUMENT_ID = '_unsaved_';

/**
 * The Content Manager's edit-view side panel (a description component: it may
 * use hooks and returns `{ title, content }` or null). Shown only for indexed
 * content types and to users who may edit the AI fields.
 *
 * The Content Manager's schemas leave out the plugin's hidden `sitemapAi`
 * attribute, so whether the type is indexed comes from the panel endpoint:
 * 400 means not indexed (no panel), 404 `NotFoundError` means the entry has no
 * draft in this locale yet (the panel, with a "save first" note).
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

  const panel = useEntryPanelData(
    canEdit ? model : null,
    documentId ?? UNSAVED_DOCUMENT_ID,
    locale,
  );

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

  if (rbacLoading || !canEdit) return null;
  // Until the first answer we do not know whether the type is indexed.
  if (panel.status === 'loading' && !panel.data) return null;
  const { error } = panel;
  // 400: not an indexed content type; 403: this user may not read the type in the Content Manager.
  if (error && (error.status === 400 || error.status === 403)) return null;
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
        error={
          noDraftYet || (documentId === undefined && error?.status === 404) ? undefined : error
        }
        onRetry={reload}
        readOnly={activeTab === 'published'}
      />
    ),
  };
};
