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

/**
 * GET an admin endpoint answering `{ data }` (shared/contracts/admin.ts), in an
 * effect (never during render). `url === null` means "do not ask".
 */
export function useAdminGet<T>(url: string | null, params?: Record<string, string>): AdminGet<T> {
  const { get } = useFetchClient();
  const [tick, setTick] = React.useState(0);
  const paramsKey = params ? JSON.stringify(params) : '';
  const requestKey = url === null ? null : `${url}?${paramsKey}`;
  const [state, setState] = React.useState<Omit<AdminGet<T>, 'reload'> & { key: string | null }>({
    key: requestKey,
    status: url === null ? 'idle' : 'loading',
    data: undefined,
    error: undefined,
  });

  React.useEffect(() => {
    if (url === null) {
      setState({ key: null, status: 'idle', data: undefined, error: undefined });
      return undefined;
    }
    let active = true;
    const key = `${url}?${paramsKey}`;
    // A reload of the same request keeps showing the last answer; another request starts empty.
    setState((previous) => ({ key, status: 'loading', data: previous.key === key ? previous.data : undefined, error: undefined }));
    get<{ data: T }>(url, paramsKey ? { params: JSON.parse(paramsKey) as Record<string, string> } : undefined)
      .then((response) => {
        if (active) setState({ key, status: 'success', data: response.data.data, error: undefined });
      })
      .catch((error: unknown) => {
        if (active && !isAbort(error)) setState({ key, status: 'error', data: undefined, error: toRequestError(error) });
      });
    return () => {
      active = false;
    };
  }, [get, url, paramsKey, tick]);

  const reload = React.useCallback(() => setTick((value) => value + 1), []);
  if (state.key !== requestKey) {
    // The request changed and its effect has not run yet: do not show the previous answer.
    return { status: requestKey === null ? 'idle' : 'loading', data: undefined, error: undefined, reload };
  }
  const { status, data, error } = state;
  return { status, data, error, reload };
}
