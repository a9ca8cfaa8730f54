import { compareVersions } from './access-log';

/**
 * GEO metrics (docs/protocol.md §10): how fast agents pick up a change, how often they ask for
 * an outdated version, and how often AI assistants send visitors. Pure.
 */

/** The seed's target: fewer than 1 % of item fetches ask for an outdated version. */
export const DRIFT_TARGET = 0.01;

/**
 * AI assistants whose visitors a site can recognise, by the referrer's host or the
 * `utm_source` they add to links (README "GEO metrics" keeps the list).
 */
export const AI_ASSISTANTS: readonly {
  name: string;
  hosts: readonly string[];
  utm: readonly string[];
}[] = [
  { name: 'ChatGPT', hosts: ['chatgpt.com', 'chat.openai.com'], utm: ['chatgpt.com', 'chatgpt'] },
  {
    name: 'Perplexity',
    hosts: ['perplexity.ai', 'www.perplexity.ai'],
    utm: ['perplexity', 'perplexity.ai'],
  },
  { name: 'Claude', hosts: ['claude.ai'], utm: ['claude', 'claude.ai'] },
  { name: 'Gemini', hosts: ['gemini.google.com'], utm: ['gemini'] },
  { name: 'Copilot', hosts: ['copilot.microsoft.com'], utm: ['copilot'] },
  { name: 'Mistral Le Chat', hosts: ['chat.mistral.ai'], utm: ['mistral', 'lechat'] },
  { name: 'DeepSeek', hosts: ['chat.deepseek.com'], utm: ['deepseek'] },
  { name: 'You.com', hosts: ['you.com'], utm: ['you.com'] },
  { name: 'Phind', hosts: ['www.phind.com', 'phind.com'], utm: ['phind'] },
  { name: 'Poe', hosts: ['poe.com'], utm: ['poe'] },
];

/** Which assistant sent a visit: its referrer's host, else its `utm_source`; `null` for any other. */
export function assistantOf(
  referrer: string | undefined,
  utmSource: string | undefined,
): string | null {
  if (referrer) {
    try {
      const host = new URL(referrer).hostname.toLowerCase();
      const found = AI_ASSISTANTS.find((a) => a.hosts.includes(host));
      if (found) return found.name;
    } catch {
      // not a URL: fall through to utm_source
    }
  }
  const source = utmSource?.trim().toLowerCase();
  if (source) {
    const found = AI_ASSISTANTS.find((a) => a.utm.includes(source));
    if (found) return found.name;
  }
  return null;
}

export interface Distribution {
  count: number;
  median: number | null;
  p90: number | null;
}

/** Nearest-rank percentiles of a list of durations. */
export function distribution(values: readonly number[]): Distribution {
  if (values.length === 0) return { count: 0, median: null, p90: null };
  const sorted = [...values].sort((a, b) => a - b);
  const rank = (p: number) => sorted[Math.max(0, Math.ceil(p * sorted.length) - 1)]!;
  return { count: sorted.length, median: rank(0.5), p90: rank(0.9) };
}

export interface PublishedChange {
  itemId: string;
  version: string;
  /** When the change was published (ISO time). */
  at: string;
  /** The snapshot that first served this version, when known. */
  seq?: number;
}

/** The snapshots a delta answer spans: what changed after `since`, up to `snapshot`. */
export interface DeltaSpan {
  since: number;
  snapshot: number;
}

/** A delta an agent read: it holds every change first served in (since, snapshot]. */
export interface DeltaFetch extends DeltaSpan {
  agent: string;
  at: string;
}

/** How the access log stores a delta's span (in its served/client version columns). */
export function encodeDeltaSpan(span: DeltaSpan): { served: string; client: string } {
  return { served: `snapshot:${span.snapshot}`, client: `since:${span.since}` };
}

export function decodeDeltaSpan(served: string | null, client: string | null): DeltaSpan | null {
  const s = /^snapshot:(\d+)$/.exec(served ?? '');
  const c = /^since:(\d+)$/.exec(client ?? '');
  return s && c ? { snapshot: Number(s[1]), since: Number(c[1]) } : null;
}

export interface ItemFetch {
  itemId: string;
  agent: string;
  servedVersion: string;
  at: string;
}

/**
 * Time-to-index per agent family: for each published change, the time to the family's first
 * pickup of it — a fetch of the item at that version (or a later one), or a delta whose span
 * holds the snapshot that first served it. Changes no family picked up yet add no duration.
 */
export function timeToIndex(
  changes: readonly PublishedChange[],
  fetches: readonly ItemFetch[],
  deltas: readonly DeltaFetch[] = [],
): { agent: string; times: number[] }[] {
  const byItem = new Map<string, ItemFetch[]>();
  for (const fetch of fetches) {
    const list = byItem.get(fetch.itemId);
    if (list) list.push(fetch);
    else byItem.set(fetch.itemId, [fetch]);
  }
  for (const list of byItem.values()) list.sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0));
  const times = new Map<string, number[]>();
  for (const change of changes) {
    const first = new Map<string, string>();
    const pick = (agent: string, at: string) => {
      const known = first.get(agent);
      if (!known || at < known) first.set(agent, at);
    };
    for (const fetch of byItem.get(change.itemId) ?? []) {
      if (fetch.at < change.at) continue;
      if (compareVersions(fetch.servedVersion, change.version) < 0) continue;
      pick(fetch.agent, fetch.at);
    }
    if (change.seq !== undefined) {
      for (const delta of deltas) {
        if (delta.at < change.at) continue;
        if (delta.since < change.seq && change.seq <= delta.snapshot) pick(delta.agent, delta.at);
      }
    }
    for (const [agent, at] of first) {
      const list = times.get(agent) ?? [];
      list.push(Date.parse(at) - Date.parse(change.at));
      times.set(agent, list);
    }
  }
  return [...times.entries()]
    .map(([agent, list]) => ({ agent, times: list }))
    .sort((a, b) => a.agent.localeCompare(b.agent));
}

/** `2026-11` of an ISO time. */
export const monthOf = (iso: string): string => iso.slice(0, 7);
/** `2026-11-30` of an ISO time. */
export const dayOf = (iso: string): string => iso.slice(0, 10);
