import { Grid } from '@strapi/design-system';
import { useIntl } from 'react-intl';
import type { DashboardData } from '../../../shared/contracts/admin';
import { useTranslate } from '../hooks/useTranslate';
import { MetricCard } from './MetricCard';

/** README › Observability success metrics: evidence coverage (≥ 90 %), index freshness (< 24 h), and what waits for the next snapshot. */
export function DashboardMetrics({ data }: { data: DashboardData }) {
  const t = useTranslate();
  const { formatNumber } = useIntl();
  // Coverage comes from the readiness checklist: none computed yet on a large site's first look.
  const noChecklistYet = data.readinessComputing === true && data.readiness.length === 0;
  return (
    <Grid.Root gap={4}>
      <Grid.Item col={3} s={6} xs={12} direction="column" alignItems="stretch">
        <MetricCard
          label={t('metrics.coverage')}
          value={
            noChecklistYet
              ? t('metrics.computing')
              : formatNumber(data.evidenceCoverage, { style: 'percent', maximumFractionDigits: 1 })
          }
          target={t('metrics.coverageTarget')}
          ok={noChecklistYet ? undefined : data.evidenceCoverage >= 0.9}
        />
      </Grid.Item>
      <Grid.Item col={3} s={6} xs={12} direction="column" alignItems="stretch">
        <MetricCard
          label={t('metrics.freshness')}
          value={t('metrics.hours', {
            hours: formatNumber(data.freshnessHours, { maximumFractionDigits: 1 }),
          })}
          target={t('metrics.freshnessTarget')}
          ok={data.freshnessHours < 24}
        />
      </Grid.Item>
      <Grid.Item col={3} s={6} xs={12} direction="column" alignItems="stretch">
        <MetricCard
          label={t('metrics.pending')}
          value={formatNumber(data.pendingChanges)}
          target={t('metrics.pendingHint')}
        />
      </Grid.Item>
      <Grid.Item col={3} s={6} xs={12} direction="column" alignItems="stretch">
        <MetricCard
          label={t('metrics.dirty')}
          value={formatNumber(data.dirtyEntries)}
          target={t('metrics.dirtyHint')}
        />
      </Grid.Item>
    </Grid.Root>
  );
}
