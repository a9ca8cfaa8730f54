import { repositories } from '../repositories';
import type { Core } from '@strapi/strapi';
import { DAY_MS } from '../../../shared/constants';
import type { Context } from 'koa';

import { DRIFT_TARGET, assistantOf, dayOf, distribution, monthOf, timeToIndex } from '../core/geo';
import type { GeoMetrics } from '../../../shared/contracts/admin';
import { geoTableCsv, type GeoTable } from '../../../shared/geo-csv';
import { InvalidParameterError } from '../core/errors';
import { getService } from '../utils/get-service';

const TOP = 10;
const ANCHOR = /^[a-z0-9][a-z0-9-]{0,79}$/;

function increment<K>(map: Map<K, number>, key: K, by = 1): void {
  map.set(key, (map.get(key) ?? 0) + by);
}

/**
 * GEO metrics (docs/protocol.md §10) from the access log, the changelog and the visits that
 * front ends report from AI assistants: time-to-index per agent family, drift per month against
 * the < 1 % target, requests and success per agent and type, and assistant visits.
 */
export const createGeoService = ({ strapi }: { strapi: Core.Strapi }) => {
  const repository = repositories(strapi).geo;

  const service = {
    /**
     * Record a visit a front end reports (`GET beacon?url=…&ref=…&utm_source=…`) when it came
     * from a known AI assistant and lands on a published page; anything else is ignored
     * without saying so (the answer is the same 204 either way).
     */
    async beacon(ctx: Context): Promise<void> {
      const allowed = new Set(['url', 'ref', 'utm_source']);
      for (const key of Object.keys(ctx.query))
        if (!allowed.has(key))
          throw new InvalidParameterError(key, 'unknown parameter; use url, ref and utm_source');
      const text = (key: string, max: number): string | undefined => {
        const value = ctx.query[key];
        if (value === undefined) return undefined;
        if (typeof value !== 'string' || value.length > max)
          throw new InvalidParameterError(key, `must be one text of at most ${max} characters`);
        return value;
      };
      const url = text('url', 2000);
      if (!url)
        throw new InvalidParameterError('url', 'is required: the page the visitor landed on');
      let landed: URL;
      try {
        landed = new URL(url);
      } catch {
        throw new InvalidParameterError('url', 'must be an absolute URL');
      }
      const assistant = assistantOf(text('ref', 2000), text('utm_source', 100));
      if (!assistant) return;
      const anchor = landed.hash.slice(1);
      landed.hash = '';
      landed.search = '';
      const index = await getService(strapi, 'discovery').index();
      const page = index.pages.find((p) => p.url === landed.href || p.url === url.split(/[?#]/)[0]);
      if (!page) return;
      const at = new Date().toISOString();
      await repository.addVisits([
        {
          at,
          assistant,
          itemId: page.id,
          anchor: ANCHOR.test(anchor) ? anchor : null,
          client: await getService(strapi, 'access-log').pseudonym(ctx.ip || 'unknown', at),
        },
      ]);
    },

    async metrics(days: number, now: Date = new Date()): Promise<GeoMetrics> {
      const since = new Date(now.getTime() - days * DAY_MS).toISOString();
      const [changes, fetches, deltas, requests, visits] = await Promise.all([
        repository.changesSince(since).then((list) => repository.withFirstSnapshot(list)),
        repository.itemFetchesSince(since),
        repository.deltaFetchesSince(since),
        repository.requestsSince(since),
        repository.visitsSince(since),
      ]);

      const drift = new Map<string, { fetches: number; drift: number }>();
      const agents = new Map<string, { requests: number; ok: number }>();
      const daily = new Map<string, number>();
      for (const r of requests) {
        if (r.item) {
          const month = drift.get(monthOf(r.at)) ?? { fetches: 0, drift: 0 };
          month.fetches += 1;
          if (r.drift) month.drift += 1;
          drift.set(monthOf(r.at), month);
        }
        const key = `${r.agent}\u0000${r.itemType ?? 'index'}`;
        const a = agents.get(key) ?? { requests: 0, ok: 0 };
        a.requests += 1;
        if (r.ok) a.ok += 1;
        agents.set(key, a);
        increment(daily, `${dayOf(r.at)}\u0000${r.agent}`);
      }
      const fragmentFetches = new Map<string, number>();
      for (const f of fetches) increment(fragmentFetches, f.itemId);
      const byAssistant = new Map<string, number>();
      const assistantDaily = new Map<string, number>();
      const visited = new Map<string, number>();
      for (const v of visits) {
        increment(byAssistant, v.assistant);
        increment(assistantDaily, `${dayOf(v.at)}\u0000${v.assistant}`);
        increment(visited, `${v.itemId}\u0000${v.anchor ?? ''}`);
      }
      const top = <K>(map: Map<K, number>) =>
        [...map.entries()].sort((a, b) => b[1] - a[1] || String(a[0]).localeCompare(String(b[0])));

      return {
        windowDays: days,
        timeToIndex: timeToIndex(changes, fetches, deltas).map(({ agent, times }) => ({
          agent,
          ...distribution(times),
        })),
        drift: [...drift.entries()]
          .sort((a, b) => a[0].localeCompare(b[0]))
          .map(([month, m]) => ({
            month,
            fetches: m.fetches,
            drift: m.drift,
            rate: m.fetches > 0 ? m.drift / m.fetches : 0,
            target: DRIFT_TARGET,
          })),
        agents: [...agents.entries()]
          .map(([key, a]) => {
            const [agent, type] = key.split('\u0000') as [string, string];
            return { agent, type, ...a, successRatio: a.requests > 0 ? a.ok / a.requests : 0 };
          })
          .sort((a, b) => b.requests - a.requests || a.agent.localeCompare(b.agent)),
        daily: [...daily.entries()]
          .map(([key, requests]) => {
            const [day, agent] = key.split('\u0000') as [string, string];
            return { day, agent, requests };
          })
          .sort((a, b) => a.day.localeCompare(b.day) || a.agent.localeCompare(b.agent)),
        topFragments: top(fragmentFetches)
          .slice(0, TOP)
          .map(([itemId, n]) => ({ itemId, fetches: n })),
        assistants: top(byAssistant).map(([assistant, n]) => ({ assistant, visits: n })),
        assistantDaily: [...assistantDaily.entries()]
          .map(([key, n]) => {
            const [day, assistant] = key.split('\u0000') as [string, string];
            return { day, assistant, visits: n };
          })
          .sort((a, b) => a.day.localeCompare(b.day) || a.assistant.localeCompare(b.assistant)),
        topVisited: top(visited)
          .slice(0, TOP)
          .map(([key, n]) => {
            const [itemId, anchor] = key.split('\u0000') as [string, string];
            return { itemId, anchor: anchor || null, visits: n };
          }),
      };
    },

    /** One table of the metrics as CSV (the same the dashboard's export buttons write). */
    csv: (metrics: GeoMetrics, table: GeoTable): string => geoTableCsv(metrics, table),

    /** Delete visits older than the access log's retention (called with its prune). */
    pruneVisits: (before: string) => repository.pruneVisits(before),
  };
  return service;
};

export type GeoService = ReturnType<typeof createGeoService>;
