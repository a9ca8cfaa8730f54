import { Box, Button, Flex, Grid, IconButton } from '@strapi/design-system';
import { Key, PaperPlane, Trash } from '@strapi/icons';
import { SECRET_MASK } from '../../../shared/settings-schema';
import { useTranslate } from '../hooks/useTranslate';
import { useWebhookTest } from '../hooks/useWebhookTest';
import type { FieldErrors } from '../utils/settings-form';
import { TextField } from './fields/TextField';
import { WebhookTestResultView } from './WebhookTestResultView';

interface WebhookSubscriberRowProps {
  index: number;
  value: { url: string; secret: string };
  onChange: (value: { url: string; secret: string }) => void;
  onRemove: () => void;
  errors: FieldErrors;
  disabled: boolean;
}

/** A random 32-byte hex secret from the browser's CSPRNG. */
function generateSecret(): string {
  const bytes = new Uint8Array(32);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');
}

/** One webhook subscriber: URL, HMAC secret, "Send test event" with the receiver's answer, remove. */
export function WebhookSubscriberRow({
  index,
  value,
  onChange,
  onRemove,
  errors,
  disabled,
}: WebhookSubscriberRowProps) {
  const t = useTranslate();
  const { state, send } = useWebhookTest();
  const name = (field: string) => `webhooks.subscribers.${index}.${field}`;
  const stored = value.secret === SECRET_MASK;

  return (
    <Box padding={4} hasRadius borderColor="neutral200">
      <Flex direction="column" alignItems="stretch" gap={3}>
        <Grid.Root gap={4}>
          <Grid.Item col={6} s={12} direction="column" alignItems="stretch">
            <TextField
              name={name('url')}
              type="url"
              label={t('settings.webhooks.url')}
              placeholder="https://"
              value={value.url}
              onChange={(url) => onChange({ ...value, url: url.trim() })}
              error={errors[name('url')]}
              disabled={disabled}
              required
            />
          </Grid.Item>
          <Grid.Item col={6} s={12} direction="column" alignItems="stretch">
            <TextField
              name={name('secret')}
              type="password"
              label={t('settings.webhooks.secret')}
              hint={
                stored ? t('settings.webhooks.secretStored') : t('settings.webhooks.secretHint')
              }
              value={value.secret}
              onChange={(secret) => onChange({ ...value, secret })}
              error={errors[name('secret')]}
              disabled={disabled}
              required
              endAction={
                disabled ? undefined : (
                  <IconButton
                    label={t('settings.webhooks.generate')}
                    variant="ghost"
                    onClick={() => onChange({ ...value, secret: generateSecret() })}
                  >
                    <Key />
                  </IconButton>
                )
              }
            />
          </Grid.Item>
        </Grid.Root>
        <Flex gap={2} wrap="wrap">
          <Button
            variant="secondary"
            size="S"
            startIcon={<PaperPlane />}
            loading={state.status === 'sending'}
            onClick={() => void send({ url: value.url, secret: value.secret })}
            disabled={disabled || value.url === '' || value.secret === ''}
          >
            {t('settings.webhooks.test')}
          </Button>
          <Button
            variant="danger-light"
            size="S"
            startIcon={<Trash />}
            onClick={onRemove}
            disabled={disabled}
          >
            {t('settings.webhooks.remove')}
          </Button>
        </Flex>
        <WebhookTestResultView state={state} />
      </Flex>
    </Box>
  );
}
