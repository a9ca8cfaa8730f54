/**
 * The GEO metrics' tables as CSV (RFC 4180), written the same by the server's export route and
 * the dashboard's export buttons.
 */
import type { GeoMetrics } from './contracts/admin';

export const GEO_TABLES = [
  'time-to-index',
  'drift',
  'agents',
  'daily',
  'fragments',
  'assistants',
  'visited',
] as const;
export type GeoTable = (typeof GEO_TABLES)[number];

/** Rows as CSV: a header line, then one line per row; fields quoted when needed. */
export function toCsv(columns: readonly string[], rows: readonly (readonly unknown[])[]): string {
  const field = (value: unknown) => {
    const text = value === null || value === undefined ? '' : String(value);
    // A leading = + - @ would be a formula in a spreadsheet: quote and prefix it.
    const safe = /^[=+\-@]/.test(text) ? `'${text}` : text;
    return /[",\r\n]/.test(safe) || safe !== text ? `"${safe.replace(/"/g, '""')}"` : safe;
  };
  return `${[columns, ...rows].map((row) => row.map(field).join(',')).join('\r\n')}\r\n`;
}

/** One table of the metrics as CSV. */
export function geoTableCsv(metrics: GeoMetrics, table: GeoTable): string {
  switch (table) {
    case 'time-to-index':
      return toCsv(
        ['agent', 'changes_fetched', 'median_ms', 'p90_ms'],
        metrics.timeToIndex.map((r) => [r.agent, r.count, r.median, r.p90]),
      );
    case 'drift':
      return toCsv(
        ['month', 'item_fetches', 'drift', 'rate', 'target'],
        metrics.drift.map((r) => [r.month, r.fetches, r.drift, r.rate, r.target]),
      );
    case 'agents':
      return toCsv(
        ['agent', 'type', 'requests', 'ok', 'success_ratio'],
        metrics.agents.map((r) => [r.agent, r.type, r.requests, r.ok, r.successRatio]),
      );
    case 'daily':
      return toCsv(
        ['day', 'agent', 'requests'],
        metrics.daily.map((r) => [r.day, r.agent, r.requests]),
      );
    case 'fragments':
      return toCsv(
        ['item_id', 'fetches'],
        metrics.topFragments.map((r) => [r.itemId, r.fetches]),
      );
    case 'assistants':
      return toCsv(
        ['day', 'assistant', 'visits'],
        metrics.assistantDaily.map((r) => [r.day, r.assistant, r.visits]),
      );
    case 'visited':
      return toCsv(
        ['item_id', 'anchor', 'visits'],
        metrics.topVisited.map((r) => [r.itemId, r.anchor, r.visits]),
      );
  }
}
