import * as React from 'react';
import { useFetchClient } from '@strapi/strapi/admin';
import type { SnapshotSummary } from '../../../shared/contracts/admin';
import { PLUGIN_ID } from '../pluginId';
import { toRequestError, type RequestError } from '../utils/request-error';

/**
 * Answer of POST /sitemap-ai/rebuild (server/src/controllers/admin.ts; not in
 * shared/contracts yet): the snapshot now current, whether nothing changed
 * (`skipped`) or another instance held the build lock (`locked`), and entries
 * that could not be fragmented.
 */
export interface RebuildAnswer {
  snapshot: SnapshotSummary | null;
  skipped: boolean;
  locked: boolean;
  failures: { uid: string; documentId: string; message: string }[];
}

export type RebuildState =
  | { status: 'idle' }
  | { status: 'running' }
  | { status: 'done'; answer: RebuildAnswer }
  | { status: 'error'; error: RequestError };

/** "Rebuild now": builds the next snapshot (rebuild permission); the state drives the progress and the outcome shown. */
export function useRebuild(onDone?: () => void): {
  state: RebuildState;
  rebuild: () => Promise<void>;
} {
  const { post } = useFetchClient();
  const [state, setState] = React.useState<RebuildState>({ status: 'idle' });
  const rebuild = React.useCallback(async () => {
    setState({ status: 'running' });
    try {
      const response = await post<{ data: RebuildAnswer }>(`/${PLUGIN_ID}/rebuild`, {});
      setState({ status: 'done', answer: response.data.data });
      onDone?.();
    } catch (error) {
      setState({ status: 'error', error: toRequestError(error) });
    }
  }, [post, onDone]);
  return { state, rebuild };
}
