import { Badge, Box, Flex, Typography } from '@strapi/design-system';
import type { WebhookTestState } from '../hooks/useWebhookTest';
import { useTranslate } from '../hooks/useTranslate';
import { RequestErrorState } from './RequestErrorState';

/** What the receiver answered to the test event: its HTTP status, the time it took, and the head of its body. */
export function WebhookTestResultView({ state }: { state: WebhookTestState }) {
  const t = useTranslate();
  if (state.status === 'idle' || state.status === 'sending') return null;
  if (state.status === 'error')
    return <RequestErrorState title={t('settings.webhooks.testFailed')} error={state.error} />;
  const { result } = state;
  const ok = result.status !== null && result.status >= 200 && result.status < 300;
  return (
    <Box
      padding={3}
      hasRadius
      background={ok ? 'success100' : 'danger100'}
      borderColor={ok ? 'success200' : 'danger200'}
      role="status"
    >
      <Flex direction="column" alignItems="stretch" gap={2}>
        <Flex gap={2} alignItems="center" wrap="wrap">
          <Typography variant="pi" fontWeight="bold">
            {t('settings.webhooks.testAnswer')}
          </Typography>
          <Badge variant={ok ? 'success' : 'danger'}>
            {result.status === null
              ? t('settings.webhooks.noAnswer')
              : t('settings.webhooks.status', { status: result.status })}
          </Badge>
          <Typography variant="pi" textColor="neutral600">
            {t('settings.webhooks.duration', { ms: result.durationMs })}
          </Typography>
        </Flex>
        {result.error ? (
          <Typography variant="pi" textColor="danger700">
            {result.error}
          </Typography>
        ) : null}
        {result.body ? (
          <Box
            padding={2}
            hasRadius
            background="neutral0"
            borderColor="neutral200"
            style={{ maxHeight: 160, overflow: 'auto' }}
          >
            <Typography
              variant="pi"
              tag="pre"
              style={{
                whiteSpace: 'pre-wrap',
                wordBreak: 'break-all',
                margin: 0,
                fontFamily: 'monospace',
              }}
            >
              {result.body}
            </Typography>
          </Box>
        ) : (
          <Typography variant="pi" textColor="neutral600">
            {t('settings.webhooks.emptyBody')}
          </Typography>
        )}
      </Flex>
    </Box>
  );
}
