import * as React from 'react';
import { Box, Button, Flex, Grid, Typography } from '@strapi/design-system';
import { Download } from '@strapi/icons';
import { useIntl } from 'react-intl';
import { useTheme } from 'styled-components';
import type { GeoMetrics } from '../../../shared/contracts/admin';
import { geoTableCsv, type GeoTable } from '../../../shared/geo-csv';
import { useTranslate } from '../hooks/useTranslate';

/** The design system's colours, with fallbacks should a theme lack one. */
function usePalette() {
  const theme = useTheme() as unknown as { colors?: Record<string, string> } | undefined;
  const c = (name: string, fallback: string) => theme?.colors?.[name] ?? fallback;
  return {
    bar: c('primary600', '#4945ff'),
    barLight: c('primary200', '#d9d8ff'),
    grid: c('neutral150', '#eaeaef'),
    text: c('neutral600', '#666687'),
    danger: c('danger600', '#d02b20'),
    series: [
      c('primary600', '#4945ff'),
      c('success600', '#328048'),
      c('warning600', '#d9822f'),
      c('danger600', '#d02b20'),
      c('secondary600', '#0c75af'),
      c('alternative600', '#9736e8'),
    ],
  };
}

/** Download one table of the metrics as CSV, written in the browser from the data shown. */
function CsvButton({ metrics, table }: { metrics: GeoMetrics; table: GeoTable }) {
  const t = useTranslate();
  const download = () => {
    const url = URL.createObjectURL(
      new Blob([geoTableCsv(metrics, table)], { type: 'text/csv;charset=utf-8' }),
    );
    const link = document.createElement('a');
    link.href = url;
    link.download = `sitemap-ai-${table}.csv`;
    link.click();
    URL.revokeObjectURL(url);
  };
  return (
    <Button variant="tertiary" size="S" startIcon={<Download />} onClick={download}>
      {t('geo.exportCsv')}
    </Button>
  );
}

function ChartCard({
  title,
  hint,
  metrics,
  table,
  empty,
  children,
}: {
  title: string;
  hint?: string;
  metrics: GeoMetrics;
  table: GeoTable;
  empty: boolean;
  children: React.ReactNode;
}) {
  const t = useTranslate();
  return (
    <Box borderColor="neutral150" hasRadius padding={4} height="100%">
      <Flex direction="column" alignItems="stretch" gap={3}>
        <Flex justifyContent="space-between" alignItems="flex-start" gap={2}>
          <Flex direction="column" alignItems="stretch" gap={1}>
            <Typography variant="sigma" tag="h3">
              {title}
            </Typography>
            {hint ? (
              <Typography variant="pi" textColor="neutral600">
                {hint}
              </Typography>
            ) : null}
          </Flex>
          {empty ? null : <CsvButton metrics={metrics} table={table} />}
        </Flex>
        {empty ? (
          <Typography variant="pi" textColor="neutral600">
            {t('geo.empty')}
          </Typography>
        ) : (
          children
        )}
      </Flex>
    </Box>
  );
}

/** Horizontal bars: one row per label, the value written after its bar. */
function Bars({
  rows,
  marker,
}: {
  rows: { label: string; value: number; text: string; light?: boolean }[];
  /** A reference value drawn as a line across the bars (a target). */
  marker?: { value: number; label: string };
}) {
  const palette = usePalette();
  const max = Math.max(...rows.map((r) => r.value), marker?.value ?? 0, Number.EPSILON);
  return (
    <Flex direction="column" alignItems="stretch" gap={2} role="list">
      {rows.map((row) => (
        <Flex key={row.label} gap={3} alignItems="center" role="listitem">
          <Box width="40%">
            <Typography variant="pi" ellipsis title={row.label}>
              {row.label}
            </Typography>
          </Box>
          <Box width="60%" position="relative">
            <svg width="100%" height="14" role="img" aria-label={`${row.label}: ${row.text}`}>
              <rect width="100%" height="14" rx="3" fill={palette.grid} />
              <rect
                width={`${Math.max(1, (row.value / max) * 100)}%`}
                height="14"
                rx="3"
                fill={row.light ? palette.barLight : palette.bar}
              />
              {marker ? (
                <line
                  x1={`${(marker.value / max) * 100}%`}
                  x2={`${(marker.value / max) * 100}%`}
                  y1="0"
                  y2="14"
                  stroke={palette.danger}
                  strokeWidth="2"
                />
              ) : null}
            </svg>
            <Typography variant="pi" textColor="neutral600">
              {row.text}
            </Typography>
          </Box>
        </Flex>
      ))}
      {marker ? (
        <Typography variant="pi" textColor="danger600">
          {marker.label}
        </Typography>
      ) : null}
    </Flex>
  );
}

/** Requests per day of the most active agent families, one line each. */
function DailyLines({ daily }: { daily: GeoMetrics['daily'] }) {
  const palette = usePalette();
  const days = [...new Set(daily.map((d) => d.day))].sort();
  const totals = new Map<string, number>();
  for (const d of daily) totals.set(d.agent, (totals.get(d.agent) ?? 0) + d.requests);
  const agents = [...totals.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, palette.series.length)
    .map(([agent]) => agent);
  const value = new Map(daily.map((d) => [`${d.day}|${d.agent}`, d.requests]));
  const max = Math.max(1, ...daily.map((d) => d.requests));
  const W = 600;
  const H = 160;
  const x = (i: number) => (days.length <= 1 ? W / 2 : (i / (days.length - 1)) * (W - 20) + 10);
  const y = (v: number) => H - 10 - (v / max) * (H - 20);
  return (
    <Flex direction="column" alignItems="stretch" gap={2}>
      <svg viewBox={`0 0 ${W} ${H}`} width="100%" role="img" aria-label={agents.join(', ')}>
        <line x1="0" x2={W} y1={H - 10} y2={H - 10} stroke={palette.grid} />
        {agents.map((agent, a) => {
          const points = days.map((day, i) => `${x(i)},${y(value.get(`${day}|${agent}`) ?? 0)}`);
          return (
            <g key={agent}>
              <polyline
                points={points.join(' ')}
                fill="none"
                stroke={palette.series[a]}
                strokeWidth="2"
              />
              {points.map((p) => {
                const [cx, cy] = p.split(',');
                return <circle key={p} cx={cx} cy={cy} r="3" fill={palette.series[a]} />;
              })}
            </g>
          );
        })}
      </svg>
      <Flex gap={3} wrap="wrap">
        {agents.map((agent, a) => (
          <Flex key={agent} gap={1} alignItems="center">
            <svg width="10" height="10" aria-hidden>
              <rect width="10" height="10" rx="2" fill={palette.series[a]} />
            </svg>
            <Typography variant="pi">{agent}</Typography>
          </Flex>
        ))}
        <Typography variant="pi" textColor="neutral600">
          {days[0]} – {days[days.length - 1]}
        </Typography>
      </Flex>
    </Flex>
  );
}

/** GEO metrics of the dashboard (docs/protocol.md §10), each chart with its CSV export. */
export function GeoCharts({ metrics }: { metrics: GeoMetrics }) {
  const t = useTranslate();
  const { formatNumber } = useIntl();
  const duration = (ms: number | null) => {
    if (ms === null) return '—';
    if (ms < 60_000)
      return t('geo.seconds', { value: formatNumber(ms / 1000, { maximumFractionDigits: 1 }) });
    if (ms < 3_600_000)
      return t('geo.minutes', { value: formatNumber(ms / 60_000, { maximumFractionDigits: 1 }) });
    return t('geo.hours', { value: formatNumber(ms / 3_600_000, { maximumFractionDigits: 1 }) });
  };
  const percent = (v: number) => formatNumber(v, { style: 'percent', maximumFractionDigits: 2 });
  const cards: React.ReactNode[] = [
    <ChartCard
      key="daily"
      title={t('geo.daily')}
      metrics={metrics}
      table="daily"
      empty={metrics.daily.length === 0}
    >
      <DailyLines daily={metrics.daily} />
    </ChartCard>,
    <ChartCard
      key="tti"
      title={t('geo.timeToIndex')}
      hint={t('geo.timeToIndexHint')}
      metrics={metrics}
      table="time-to-index"
      empty={metrics.timeToIndex.length === 0}
    >
      <Bars
        rows={metrics.timeToIndex.flatMap((r) => [
          {
            label: `${r.agent} · ${t('geo.median')}`,
            value: r.median ?? 0,
            text: `${duration(r.median)} (${t('geo.changes', { count: r.count })})`,
          },
          {
            label: `${r.agent} · p90`,
            value: r.p90 ?? 0,
            text: duration(r.p90),
            light: true,
          },
        ])}
      />
    </ChartCard>,
    <ChartCard
      key="drift"
      title={t('geo.drift')}
      hint={t('geo.driftHint')}
      metrics={metrics}
      table="drift"
      empty={metrics.drift.length === 0}
    >
      <Bars
        rows={metrics.drift.map((m) => ({
          label: m.month,
          value: m.rate,
          text: `${percent(m.rate)} (${m.drift} / ${m.fetches})`,
        }))}
        marker={{
          value: metrics.drift[0]?.target ?? 0.01,
          label: t('geo.target', { value: percent(metrics.drift[0]?.target ?? 0.01) }),
        }}
      />
    </ChartCard>,
    <ChartCard
      key="fragments"
      title={t('geo.fragments')}
      metrics={metrics}
      table="fragments"
      empty={metrics.topFragments.length === 0}
    >
      <Bars
        rows={metrics.topFragments.map((f) => ({
          label: f.itemId,
          value: f.fetches,
          text: formatNumber(f.fetches),
        }))}
      />
    </ChartCard>,
    <ChartCard
      key="assistants"
      title={t('geo.assistants')}
      hint={t('geo.assistantsHint')}
      metrics={metrics}
      table="assistants"
      empty={metrics.assistants.length === 0}
    >
      <Bars
        rows={metrics.assistants.map((a) => ({
          label: a.assistant,
          value: a.visits,
          text: formatNumber(a.visits),
        }))}
      />
    </ChartCard>,
    <ChartCard
      key="visited"
      title={t('geo.visited')}
      metrics={metrics}
      table="visited"
      empty={metrics.topVisited.length === 0}
    >
      <Bars
        rows={metrics.topVisited.map((v) => ({
          label: v.anchor ? `${v.itemId}#${v.anchor}` : v.itemId,
          value: v.visits,
          text: formatNumber(v.visits),
        }))}
      />
    </ChartCard>,
  ];
  return (
    <Grid.Root gap={4}>
      {cards.map((card, i) => (
        <Grid.Item key={i} col={6} s={12} direction="column" alignItems="stretch">
          {card}
        </Grid.Item>
      ))}
    </Grid.Root>
  );
}
