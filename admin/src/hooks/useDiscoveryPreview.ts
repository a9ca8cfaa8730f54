import * as React from 'react';
import { useFetchClient } from '@strapi/strapi/admin';
import type { DiscoveryPreview, DiscoverySettings } from '../../../shared/contracts/admin';
import { PLUGIN_ID } from '../pluginId';
import { isAbort, toRequestError, type RequestError } from '../utils/request-error';

/** How long the form must be still before the preview is asked for (typing does not flood the server). */
export const PREVIEW_DELAY_MS = 400;

export type DiscoveryPreviewState =
  | { status: 'idle' }
  /** `preview` is the last answer, shown while the next one is on its way. */
  | { status: 'loading'; preview: DiscoveryPreview | undefined }
  | { status: 'done'; preview: DiscoveryPreview }
  | { status: 'error'; error: RequestError };

interface Settled {
  key: string;
  preview?: DiscoveryPreview;
  error?: RequestError;
}

/**
 * POST /sitemap-ai/discovery/preview (settings.update): robots.txt and llms.txt as they would
 * read with these unsaved values, asked for once the values have been still for `delayMs`.
 * `null` means "do not ask" (invalid values, or no permission). An answer to values that have
 * changed since is never shown.
 */
export function useDiscoveryPreview(
  discovery: DiscoverySettings | null,
  delayMs = PREVIEW_DELAY_MS,
): DiscoveryPreviewState {
  const { post } = useFetchClient();
  const key = discovery === null ? null : JSON.stringify(discovery);
  const [settled, setSettled] = React.useState<Settled | null>(null);

  React.useEffect(() => {
    if (key === null) return undefined;
    let active = true;
    const timer = setTimeout(() => {
      post<{ data: DiscoveryPreview }>(
        `/${PLUGIN_ID}/discovery/preview`,
        JSON.parse(key) as DiscoverySettings,
      )
        .then((response) => {
          if (active) setSettled({ key, preview: response.data.data });
        })
        .catch((error: unknown) => {
          if (active && !isAbort(error)) setSettled({ key, error: toRequestError(error) });
        });
    }, delayMs);
    return () => {
      active = false;
      clearTimeout(timer);
    };
  }, [post, key, delayMs]);

  if (key === null) return { status: 'idle' };
  if (settled === null || settled.key !== key)
    return { status: 'loading', preview: settled?.preview };
  if (settled.error) return { status: 'error', error: settled.error };
  return { status: 'done', preview: settled.preview! };
}
