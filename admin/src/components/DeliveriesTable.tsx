import { Badge, Table, Tbody, Td, Th, Thead, Tr, Typography } from '@strapi/design-system';
import { useIntl } from 'react-intl';
import type { WebhookDelivery, WebhookDeliveryStatus } from '../../../shared/contracts/webhooks';
import { useTranslate, type MessageKey } from '../hooks/useTranslate';

const STATUS: Record<
  WebhookDeliveryStatus,
  { label: MessageKey; variant: 'success' | 'warning' | 'danger' }
> = {
  delivered: { label: 'deliveries.status.delivered', variant: 'success' },
  pending: { label: 'deliveries.status.pending', variant: 'warning' },
  failed: { label: 'deliveries.status.failed', variant: 'danger' },
};

/** The webhook delivery log: to whom, which event, its state, attempts and the receiver's last answer. */
export function DeliveriesTable({ deliveries }: { deliveries: WebhookDelivery[] }) {
  const t = useTranslate();
  const { formatDate } = useIntl();
  if (deliveries.length === 0) {
    return (
      <Typography variant="pi" textColor="neutral600">
        {t('deliveries.empty')}
      </Typography>
    );
  }
  const when = (value: string | null) =>
    value ? formatDate(value, { dateStyle: 'short', timeStyle: 'short' }) : '—';
  return (
    <Table colCount={6} rowCount={deliveries.length + 1}>
      <Thead>
        <Tr>
          <Th>
            <Typography variant="sigma">{t('deliveries.created')}</Typography>
          </Th>
          <Th>
            <Typography variant="sigma">{t('deliveries.subscriber')}</Typography>
          </Th>
          <Th>
            <Typography variant="sigma">{t('deliveries.event')}</Typography>
          </Th>
          <Th>
            <Typography variant="sigma">{t('deliveries.status')}</Typography>
          </Th>
          <Th>
            <Typography variant="sigma">{t('deliveries.attempts')}</Typography>
          </Th>
          <Th>
            <Typography variant="sigma">{t('deliveries.lastAnswer')}</Typography>
          </Th>
        </Tr>
      </Thead>
      <Tbody>
        {deliveries.map((delivery) => {
          const status = STATUS[delivery.status] ?? STATUS.pending;
          return (
            <Tr key={delivery.id}>
              <Td>
                <Typography>{when(delivery.created)}</Typography>
              </Td>
              <Td>
                <Typography
                  ellipsis
                  style={{ maxWidth: 280, display: 'block' }}
                  title={delivery.subscriberUrl}
                >
                  {delivery.subscriberUrl}
                </Typography>
              </Td>
              <Td>
                <Typography>{delivery.event}</Typography>
              </Td>
              <Td>
                <Badge variant={status.variant}>{t(status.label)}</Badge>
              </Td>
              <Td>
                <Typography>{delivery.attempts}</Typography>
              </Td>
              <Td>
                <Typography title={delivery.lastError ?? undefined}>
                  {delivery.lastStatusCode !== null
                    ? t('deliveries.httpStatus', {
                        status: delivery.lastStatusCode,
                        when: when(delivery.lastAttemptAt),
                      })
                    : delivery.lastError
                      ? delivery.lastError
                      : delivery.status === 'pending'
                        ? t('deliveries.nextAttempt', { when: when(delivery.nextAttemptAt) })
                        : '—'}
                </Typography>
              </Td>
            </Tr>
          );
        })}
      </Tbody>
    </Table>
  );
}
