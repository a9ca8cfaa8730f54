import * as React from 'react';
import { useFetchClient } from '@strapi/strapi/admin';
import type { WebhookTestRequest } from '../../../shared/contracts/admin';
import type { WebhookTestResult } from '../../../shared/contracts/webhooks';
import { PLUGIN_ID } from '../pluginId';
import { toRequestError, type RequestError } from '../utils/request-error';

export type WebhookTestState =
  | { status: 'idle' }
  | { status: 'sending' }
  | { status: 'done'; result: WebhookTestResult }
  | { status: 'error'; error: RequestError };

/** POST /sitemap-ai/webhooks/test (settings.update): a signed ping to one URL, answering with the receiver's status and body. */
export function useWebhookTest(): {
  state: WebhookTestState;
  send: (request: WebhookTestRequest) => Promise<void>;
  reset: () => void;
} {
  const { post } = useFetchClient();
  const [state, setState] = React.useState<WebhookTestState>({ status: 'idle' });
  const mounted = React.useRef(true);
  React.useEffect(() => {
    mounted.current = true;
    return () => {
      mounted.current = false;
    };
  }, []);
  const send = React.useCallback(
    async (request: WebhookTestRequest) => {
      setState({ status: 'sending' });
      try {
        const response = await post<{ data: WebhookTestResult }>(
          `/${PLUGIN_ID}/webhooks/test`,
          request,
        );
        if (mounted.current) setState({ status: 'done', result: response.data.data });
      } catch (error) {
        if (mounted.current) setState({ status: 'error', error: toRequestError(error) });
      }
    },
    [post],
  );
  const reset = React.useCallback(() => setState({ status: 'idle' }), []);
  return { state, send, reset };
}
