import { Table, Tbody, Td, Th, Thead, Tr, Typography } from '@strapi/design-system';
import { useIntl } from 'react-intl';
import type { SnapshotSummary } from '../../../shared/contracts/admin';
import { useTranslate, type MessageKey } from '../hooks/useTranslate';
import { formatChanges, formatDuration } from '../utils/format';

const TRIGGERS: Record<string, MessageKey> = {
  admin: 'snapshots.trigger.admin',
  schedule: 'snapshots.trigger.schedule',
  bootstrap: 'snapshots.trigger.bootstrap',
  seed: 'snapshots.trigger.seed',
};

/** The last snapshots: when, how many items, what changed, what started it and how long it took. */
export function SnapshotsTable({ snapshots }: { snapshots: SnapshotSummary[] }) {
  const t = useTranslate();
  const { formatDate } = useIntl();
  if (snapshots.length === 0) {
    return (
      <Typography variant="pi" textColor="neutral600">
        {t('snapshots.empty')}
      </Typography>
    );
  }
  return (
    <Table colCount={6} rowCount={snapshots.length + 1}>
      <Thead>
        <Tr>
          <Th>
            <Typography variant="sigma">{t('snapshots.id')}</Typography>
          </Th>
          <Th>
            <Typography variant="sigma">{t('snapshots.when')}</Typography>
          </Th>
          <Th>
            <Typography variant="sigma">{t('snapshots.items')}</Typography>
          </Th>
          <Th>
            <Typography variant="sigma">{t('snapshots.changes')}</Typography>
          </Th>
          <Th>
            <Typography variant="sigma">{t('snapshots.trigger')}</Typography>
          </Th>
          <Th>
            <Typography variant="sigma">{t('snapshots.duration')}</Typography>
          </Th>
        </Tr>
      </Thead>
      <Tbody>
        {snapshots.map((snapshot) => (
          <Tr key={snapshot.id}>
            <Td>
              <Typography fontWeight="bold">#{snapshot.id}</Typography>
            </Td>
            <Td>
              <Typography>
                {formatDate(snapshot.created_at, { dateStyle: 'medium', timeStyle: 'short' })}
              </Typography>
            </Td>
            <Td>
              <Typography>{snapshot.item_count}</Typography>
            </Td>
            <Td>
              <Typography title={t('snapshots.changesTitle', snapshot.changes)}>
                {formatChanges(snapshot.changes)}
              </Typography>
            </Td>
            <Td>
              <Typography>
                {TRIGGERS[snapshot.trigger] ? t(TRIGGERS[snapshot.trigger]!) : snapshot.trigger}
              </Typography>
            </Td>
            <Td>
              <Typography>{formatDuration(snapshot.duration_ms)}</Typography>
            </Td>
          </Tr>
        ))}
      </Tbody>
    </Table>
  );
}
