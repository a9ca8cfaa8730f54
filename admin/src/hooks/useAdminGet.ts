import * as React from 'react';
import { useFetchClient } from '@strapi/strapi/admin';
import { isAbort, toRequestError, type RequestError } from '../utils/request-error';

export type RequestStatus = 'idle' | 'loading' | 'success' | 'error';

export interface AdminGet<T> {
  status: RequestStatus;
  /** The last answer; kept while a reload runs. */
  data: T | undefined;
  error: RequestError | undefined;
  reload: () => void;
}

interface Settled<T> {
  key: string;
  tick: number;
  status: 'success' | 'error';
  data: T | undefined;
  error: RequestError | undefined;
}

/**
 * GET an admin endpoint answering `{ data }` (shared/contracts/admin.ts), in an
 * effect (never during render). `url === null` means "do not ask".
 */
export function useAdminGet<T>(url: string | null, params?: Record<string, string>): AdminGet<T> {
  const { get } = useFetchClient();
  const [tick, setTick] = React.useState(0);
  const paramsKey = params ? JSON.stringify(params) : '';
  const requestKey = url === null ? null : `${url}?${paramsKey}`;
  // The last settled answer, with the request and reload it answered; the status shown is derived
  // from it, so the effect only sets state when a request settles.
  const [settled, setSettled] = React.useState<Settled<T> | null>(null);

  React.useEffect(() => {
    if (url === null) return undefined;
    let active = true;
    const key = `${url}?${paramsKey}`;
    get<{ data: T }>(
      url,
      paramsKey ? { params: JSON.parse(paramsKey) as Record<string, string> } : undefined,
    )
      .then((response) => {
        if (active)
          setSettled({ key, tick, status: 'success', data: response.data.data, error: undefined });
      })
      .catch((error: unknown) => {
        if (active && !isAbort(error)) {
          setSettled({ key, tick, status: 'error', data: undefined, error: toRequestError(error) });
        }
      });
    return () => {
      active = false;
    };
  }, [get, url, paramsKey, tick]);

  const reload = React.useCallback(() => setTick((value) => value + 1), []);
  if (requestKey === null) return { status: 'idle', data: undefined, error: undefined, reload };
  if (settled === null || settled.key !== requestKey) {
    // Another request than the one answered: do not show the previous answer.
    return { status: 'loading', data: undefined, error: undefined, reload };
  }
  if (settled.tick !== tick) {
    // A reload of the same request keeps showing the last answer while it runs.
    return { status: 'loading', data: settled.data, error: undefined, reload };
  }
  return { status: settled.status, data: settled.data, error: settled.error, reload };
}
