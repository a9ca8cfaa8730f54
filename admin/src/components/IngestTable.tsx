import { Table, Tbody, Td, Th, Thead, Tr, Typography } from '@strapi/design-system';
import type { IngestRow } from '../../../shared/contracts/admin';
import { useTranslate } from '../hooks/useTranslate';

/** AI-agent ingest by agent family and fragment type (README › Observability): requests, successful answers, drift. */
export function IngestTable({ rows }: { rows: IngestRow[] }) {
  const t = useTranslate();
  if (rows.length === 0) {
    return (
      <Typography variant="pi" textColor="neutral600">
        {t('ingest.empty')}
      </Typography>
    );
  }
  return (
    <Table colCount={5} rowCount={rows.length + 1}>
      <Thead>
        <Tr>
          <Th>
            <Typography variant="sigma">{t('ingest.agent')}</Typography>
          </Th>
          <Th>
            <Typography variant="sigma">{t('ingest.type')}</Typography>
          </Th>
          <Th>
            <Typography variant="sigma">{t('ingest.requests')}</Typography>
          </Th>
          <Th>
            <Typography variant="sigma">{t('ingest.ok')}</Typography>
          </Th>
          <Th>
            <Typography variant="sigma">{t('ingest.drift')}</Typography>
          </Th>
        </Tr>
      </Thead>
      <Tbody>
        {rows.map((row) => (
          <Tr key={`${row.agent}:${row.type}`}>
            <Td>
              <Typography fontWeight="bold">{row.agent}</Typography>
            </Td>
            <Td>
              <Typography>{row.type}</Typography>
            </Td>
            <Td>
              <Typography>{row.requests}</Typography>
            </Td>
            <Td>
              <Typography>
                {t('ingest.okValue', {
                  ok: row.ok,
                  percent: row.requests > 0 ? Math.round((row.ok / row.requests) * 100) : 0,
                })}
              </Typography>
            </Td>
            <Td>
              <Typography>{row.drift ?? '—'}</Typography>
            </Td>
          </Tr>
        ))}
      </Tbody>
    </Table>
  );
}
