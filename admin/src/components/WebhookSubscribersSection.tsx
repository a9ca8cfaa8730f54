import { Box, Button, Flex, Typography } from '@strapi/design-system';
import { Plus } from '@strapi/icons';
import type { EditableSettings } from '../../../shared/contracts/admin';
import { useTranslate } from '../hooks/useTranslate';
import type { FieldErrors } from '../utils/settings-form';
import { SectionCard } from './SectionCard';
import { WebhookSubscriberRow } from './WebhookSubscriberRow';

interface WebhookSubscribersSectionProps {
  subscribers: EditableSettings['webhooks']['subscribers'];
  onChange: (subscribers: EditableSettings['webhooks']['subscribers']) => void;
  errors: FieldErrors;
  disabled: boolean;
}

/** Receivers of the signed `manifest.updated` webhook (docs/protocol.md §8 events). */
export function WebhookSubscribersSection({
  subscribers,
  onChange,
  errors,
  disabled,
}: WebhookSubscribersSectionProps) {
  const t = useTranslate();
  return (
    <SectionCard
      title={t('settings.webhooks.title')}
      description={t('settings.webhooks.description')}
    >
      {subscribers.length === 0 ? (
        <Typography variant="pi" textColor="neutral600">
          {t('settings.webhooks.empty')}
        </Typography>
      ) : null}
      <Flex direction="column" alignItems="stretch" gap={3}>
        {subscribers.map((subscriber, index) => (
          <WebhookSubscriberRow
            key={index}
            index={index}
            value={subscriber}
            onChange={(next) => onChange(subscribers.map((item, i) => (i === index ? next : item)))}
            onRemove={() => onChange(subscribers.filter((_, i) => i !== index))}
            errors={errors}
            disabled={disabled}
          />
        ))}
      </Flex>
      {errors['webhooks.subscribers'] ? (
        <Typography variant="pi" textColor="danger600">
          {errors['webhooks.subscribers']}
        </Typography>
      ) : null}
      {disabled ? null : (
        <Box>
          <Button
            variant="secondary"
            startIcon={<Plus />}
            onClick={() => onChange([...subscribers, { url: '', secret: '' }])}
          >
            {t('settings.webhooks.add')}
          </Button>
        </Box>
      )}
    </SectionCard>
  );
}
