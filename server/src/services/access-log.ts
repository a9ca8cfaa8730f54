import { repositories } from '../repositories';
import type { Core } from '@strapi/strapi';
import { DAY_MS, HOUR_MS } from '../../../shared/constants';
import {
  ACCESS_LOG_RETENTION_DEFAULT_DAYS,
  ITEM_ROUTE_KINDS,
  detectDrift,
  ingestType,
  pseudonymiseClient,
  utcDay,
  type ClientValidators,
  type RouteKind,
  type ServedItem,
} from '../core/access-log';
import type { AgentFamily } from '../core/agents';
import { type AccessLogRecord, type IngestCount } from '../repositories/access-log-repository';
import { getService } from '../utils/get-service';
import type { AgentTier } from './agents';
import { encodeDeltaSpan, type DeltaSpan } from '../core/geo';
import { messageOf } from '../core/errors';

/** One request as the middleware saw it; the raw address lives only here, in memory, until the next write. */
export interface AccessLogHit {
  at: string;
  agent: AgentFamily;
  route: RouteKind;
  /** The item served (its current id when an alias was asked for), for item routes. */
  itemId: string | null;
  /** The item as the route served it (from `ctx.state`); absent when none was served (404, 403). */
  served?: ServedItem;
  status: number;
  ip: string;
  validators: ClientValidators;
  /** How the caller was treated (verified, unverified, anonymous). */
  tier?: AgentTier;
  /** For a delta: the snapshots it spans (GEO time-to-index). */
  delta?: DeltaSpan;
}

/** Entries waiting to be written beyond this are dropped (and counted): a flood must not grow memory. */
const BUFFER_MAX = 10_000;
/** Entries written per insert. */
const WRITE_CHUNK = 500;
/**
 * Hits wait this long to be written together: one insert (one commit) per batch instead of one per
 * request, which on a busy route cost more than serving it.
 */
const BATCH_DELAY_MS = 250;
/** Expired entries are deleted at most this often per instance. */
const PRUNE_INTERVAL_MS = HOUR_MS;

/**
 * The access log of the public routes (README › Observability). `record` only queues
 * (the request never waits for the database); a background write starts at
 * once and takes everything queued meanwhile, so writes batch themselves
 * under load. Errors are logged, never thrown to a request. Entries older
 * than `accessLog.retentionDays` are deleted hourly (`start`/`stop` run that
 * timer; the writes also prune when an hour has passed).
 */
export const createAccessLogService = ({ strapi }: { strapi: Core.Strapi }) => {
  const repository = repositories(strapi).accessLog;
  const items = repositories(strapi).items;
  const snapshots = repositories(strapi).snapshots;

  let queue: AccessLogHit[] = [];
  let writing: Promise<void> | null = null;
  let dropped = 0;
  let salt: { day: string; value: string } | null = null;
  let lastPrune = 0;
  let timer: ReturnType<typeof setInterval> | null = null;
  let batching: ReturnType<typeof setTimeout> | null = null;
  let pruning: Promise<number> | null = null;

  /** `accessLog` of the effective config (file config with the Settings' retention on top). */
  function settings(): { enabled: boolean; retentionDays: number } {
    const { accessLog } = getService(strapi, 'config').config();
    return {
      enabled: accessLog.enabled,
      retentionDays: accessLog.retentionDays ?? ACCESS_LOG_RETENTION_DEFAULT_DAYS,
    };
  }

  async function saltOf(day: string): Promise<string> {
    if (salt?.day === day) return salt.value;
    const value = await repository.saltFor(day);
    // Only today's salt is kept in memory; a late entry of yesterday reads yesterday's from the database.
    if (!salt || day >= salt.day) salt = { day, value };
    return value;
  }

  async function toRecords(hits: readonly AccessLogHit[]): Promise<AccessLogRecord[]> {
    // Items a route served are logged as served; only a refused or failed item request looks up
    // the id it asked for (to count it under its type).
    const ids = hits
      .filter((h) => !h.served && h.itemId && ITEM_ROUTE_KINDS.has(h.route))
      .map((h) => h.itemId!);
    const latest = ids.length > 0 ? await snapshots.latest() : null;
    const described: Map<string, Pick<ServedItem, 'type' | 'version' | 'checksum'>> = latest
      ? await items.describe(latest.seq, ids)
      : new Map();
    const records: AccessLogRecord[] = [];
    for (const hit of hits) {
      const item = hit.served ?? (hit.itemId ? described.get(hit.itemId) : undefined);
      const { drift, clientVersion } = detectDrift({
        kind: hit.route,
        status: hit.status,
        validators: hit.validators,
        served: item ? { version: item.version, checksum: item.checksum } : null,
      });
      const span = hit.route === 'delta' && hit.delta ? encodeDeltaSpan(hit.delta) : null;
      records.push({
        at: hit.at,
        agent: hit.agent,
        route: hit.route,
        ingestType: ingestType(hit.route, item?.type),
        itemId: hit.itemId,
        itemType: item?.type ?? null,
        servedVersion: span?.served ?? item?.version ?? null,
        clientVersion: span?.client ?? clientVersion,
        drift,
        status: hit.status,
        client: pseudonymiseClient(hit.ip, await saltOf(utcDay(hit.at))),
        tier: hit.tier ?? 'anonymous',
      });
    }
    return records;
  }

  async function drain(): Promise<void> {
    while (queue.length > 0) {
      const batch = queue.slice(0, WRITE_CHUNK);
      queue = queue.slice(batch.length);
      try {
        await repository.insert(await toRecords(batch));
      } catch (error) {
        strapi.log.error(
          `[sitemap-ai] access log: ${batch.length} entries not written: ${messageOf(error)}`,
        );
      }
    }
    if (dropped > 0) {
      strapi.log.warn(
        `[sitemap-ai] access log: ${dropped} entries dropped (more than ${BUFFER_MAX} waiting to be written)`,
      );
      dropped = 0;
    }
    if (Date.now() - lastPrune >= PRUNE_INTERVAL_MS) await backgroundPrune();
  }

  /** One prune at a time; errors are logged. */
  function backgroundPrune(): Promise<number> {
    if (!pruning) {
      pruning = service
        .prune()
        .catch(logPruneError)
        .finally(() => {
          pruning = null;
        });
    }
    return pruning;
  }

  function logPruneError(error: unknown): number {
    strapi.log.error(`[sitemap-ai] access log: pruning failed: ${messageOf(error)}`);
    return 0;
  }

  /** Write what is queued now. */
  function kick(): void {
    if (batching) clearTimeout(batching);
    batching = null;
    if (writing) return;
    writing = drain().finally(() => {
      writing = null;
      if (queue.length > 0) schedule();
    });
  }

  /** Write what is queued soon: at once when a batch is full, else after BATCH_DELAY_MS. */
  function schedule(): void {
    if (writing || batching) return;
    if (queue.length >= WRITE_CHUNK) return kick();
    batching = setTimeout(kick, BATCH_DELAY_MS);
    batching.unref();
  }

  const service = {
    /** Queue one request (returns at once; nothing here can fail a response). */
    record(hit: AccessLogHit): void {
      if (!settings().enabled) return;
      if (queue.length >= BUFFER_MAX) {
        dropped += 1;
        return;
      }
      queue.push(hit);
      schedule();
    },

    /** Wait until everything queued so far is written (tests, shutdown). */
    async flush(): Promise<void> {
      while (writing || queue.length > 0) {
        kick();
        await writing;
      }
    },

    /** Delete entries older than the retention, and the salts of past days; returns how many entries went. */
    async prune(now: Date = new Date()): Promise<number> {
      lastPrune = Date.now();
      const cutoff = new Date(now.getTime() - settings().retentionDays * DAY_MS).toISOString();
      const deleted = await repository.prune(cutoff);
      await getService(strapi, 'geo').pruneVisits(cutoff);
      await repository.dropSaltsBefore(utcDay(now));
      if (salt && salt.day < utcDay(now)) salt = null;
      return deleted;
    },

    /** Requests per agent family and type over the retention window. */
    async ingest(now: Date = new Date()): Promise<{ windowDays: number; rows: IngestCount[] }> {
      const windowDays = settings().retentionDays;
      const since = new Date(now.getTime() - windowDays * DAY_MS).toISOString();
      return { windowDays, rows: await repository.ingest(since) };
    },

    /** The pseudonym of a client on the day of `at` (the same the access log writes). */
    async pseudonym(ip: string, at: string): Promise<string> {
      return pseudonymiseClient(ip, await saltOf(utcDay(at)));
    },

    /** Stored entries, oldest first (bounded). */
    list: (limit = 1000) => repository.list(limit),

    /** Start the hourly retention prune (call in bootstrap). */
    start(): void {
      if (timer) return;
      timer = setInterval(() => void backgroundPrune(), PRUNE_INTERVAL_MS);
      timer.unref();
      void backgroundPrune();
    },

    /** Stop the prune timer and write what is still queued (call and await in destroy). */
    async stop(): Promise<void> {
      if (timer) clearInterval(timer);
      timer = null;
      await service.flush();
      if (pruning) await pruning;
      salt = null;
    },
  };
  return service;
};

export type AccessLogService = ReturnType<typeof createAccessLogService>;
