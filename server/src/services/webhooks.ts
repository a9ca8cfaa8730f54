import { repositories } from '../repositories';
import type { Core } from '@strapi/strapi';
import type { IndexNowConfig, WebhooksConfig } from '../core/config';
import {
  DAY_MS,
  WEBHOOK_DELIVERY_HEADER,
  WEBHOOK_DELIVERY_STATUSES,
  WEBHOOK_EVENT_HEADER,
  WEBHOOK_SECRET_MIN_LENGTH,
  WEBHOOK_SIGNATURE_HEADER,
  WEBHOOK_USER_AGENT,
  type WebhookDeliveryStatus,
} from '../../../shared/constants';
import { forEachLimited } from '../core/concurrency';
import { InvalidParameterError, messageOf } from '../core/errors';
import { isHttpUrl } from '../../../shared/urls';
import {
  backoffDelay,
  indexNowBodies,
  pingEvent,
  signPayload,
  type WebhookEvent,
} from '../core/webhooks';
import { type WebhookDeliveryRecord } from '../repositories/webhook-repository';
import { getService } from '../utils/get-service';
import type {
  WebhookDelivery,
  WebhookLogQuery,
  WebhookTestResult,
} from '../../../shared/contracts/webhooks';

/** The delivery loop looks for due deliveries this often. */
const DELIVERY_LOOP_INTERVAL_MS = 5_000;
/** …and prunes the delivery log this often. */
const PRUNE_INTERVAL_MS = 60 * 60 * 1000;
/** Deliveries sent per `deliverDue` run, and how many at once. */
const DUE_BATCH_SIZE = 50;
const SEND_CONCURRENCY = 4;
/** A claimed attempt is not taken over by another instance before its timeout plus this. */
const CLAIM_GRACE_MS = 60_000;
/** A test answer's body is cut here (the Settings page shows it). */
const RESPONSE_BODY_MAX_BYTES = 2048;
/** How much of a failed answer's body goes into `last_error`. */
const ERROR_BODY_CHARS = 200;
const LOG_LIMIT_DEFAULT = 50;
const LOG_LIMIT_MAX = 500;

/** The outcome of one HTTP request: a status, or why none came. */
interface HttpOutcome {
  status: number | null;
  body: string;
  durationMs: number;
  error?: string;
}

/** What one `deliverDue` run did. */
export interface DeliveryRunSummary {
  delivered: number;
  /** Failed attempts that will be retried later. */
  retrying: number;
  /** Deliveries that gave up (attempts exhausted or subscriber removed). */
  failed: number;
  /** Due rows another instance claimed first. */
  skipped: number;
}

export interface IndexNowOutcome {
  /** URLs submitted (0 when IndexNow is off or nothing of the site changed). */
  submitted: number;
  /** HTTP status of each request (null when no answer came). */
  statuses: (number | null)[];
}

export interface EnqueueResult {
  /** Ids of the queued deliveries (one per subscribed subscriber). */
  deliveries: number[];
  indexNow: IndexNowOutcome;
}

async function readHead(response: Response, maxBytes: number): Promise<string> {
  if (!response.body) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (size < maxBytes) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      size += value.byteLength;
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
  return Buffer.concat(chunks).subarray(0, maxBytes).toString('utf8');
}

function describeFailure(error: unknown, timedOut: boolean, timeoutMs: number): string {
  if (timedOut) return `timed out after ${timeoutMs} ms`;
  if (error instanceof Error) {
    const cause = (error as Error & { cause?: { code?: string; message?: string } }).cause;
    const detail = cause?.code ?? cause?.message;
    return detail ? `${error.message}: ${detail}` : error.message;
  }
  return String(error);
}

/** POST a body; never throws, never follows redirects (a 3xx is not a delivery). */
async function post(
  url: string,
  headers: Record<string, string>,
  rawBody: string,
  timeoutMs: number,
): Promise<HttpOutcome> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  try {
    const response = await fetch(url, {
      method: 'POST',
      headers,
      body: rawBody,
      redirect: 'manual',
      signal: controller.signal,
    });
    const body = await readHead(response, RESPONSE_BODY_MAX_BYTES);
    return { status: response.status, body, durationMs: elapsed() };
  } catch (error) {
    return {
      status: null,
      body: '',
      durationMs: elapsed(),
      error: describeFailure(error, controller.signal.aborted, timeoutMs),
    };
  } finally {
    clearTimeout(timer);
  }
}

function isSuccess(status: number | null): boolean {
  return status !== null && status >= 200 && status < 300;
}

function failureMessage(outcome: HttpOutcome): string {
  if (outcome.error) return outcome.error;
  const body = outcome.body.replace(/\s+/g, ' ').trim().slice(0, ERROR_BODY_CHARS);
  return body ? `HTTP ${outcome.status}: ${body}` : `HTTP ${outcome.status}`;
}

function signedHeaders(
  secret: string,
  rawBody: string,
  event: string,
  deliveryId: string,
): Record<string, string> {
  return {
    'Content-Type': 'application/json',
    'User-Agent': WEBHOOK_USER_AGENT,
    // Signed at send time with the real clock: receivers compare `t` with theirs.
    [WEBHOOK_SIGNATURE_HEADER]: signPayload(secret, rawBody, Math.floor(Date.now() / 1000)),
    [WEBHOOK_DELIVERY_HEADER]: deliveryId,
    [WEBHOOK_EVENT_HEADER]: event,
  };
}

/**
 * Signed webhooks and IndexNow pings (docs/protocol.md §8 events). Deliveries are rows in
 * the database — queued by `enqueue`, sent by `deliverDue` (the delivery loop
 * calls it every few seconds) — so retries survive a restart, and several
 * Strapi instances never send the same attempt twice (a conditional claim).
 */
export const createWebhookService = ({ strapi }: { strapi: Core.Strapi }) => {
  const repository = repositories(strapi).webhooks;
  const webhooks = (): WebhooksConfig => getService(strapi, 'config').config().webhooks;
  const indexNow = (): IndexNowConfig => getService(strapi, 'config').config().indexNow;
  const siteUrl = (): string => getService(strapi, 'config').config().siteUrl;

  async function pingIndexNow(urls: readonly string[]): Promise<IndexNowOutcome> {
    const outcome: IndexNowOutcome = { submitted: 0, statuses: [] };
    try {
      const config = indexNow();
      if (!config.enabled || !config.key || urls.length === 0) return outcome;
      const bodies = indexNowBodies({
        siteUrl: siteUrl(),
        key: config.key,
        keyLocation: config.keyLocation,
        urls,
      });
      for (const body of bodies) {
        const result = await post(
          config.endpoint,
          { 'Content-Type': 'application/json; charset=utf-8', 'User-Agent': WEBHOOK_USER_AGENT },
          JSON.stringify(body),
          webhooks().timeoutMs,
        );
        outcome.statuses.push(result.status);
        if (isSuccess(result.status)) outcome.submitted += body.urlList.length;
        else
          strapi.log.warn(
            `[sitemap-ai] IndexNow ping of ${body.urlList.length} URLs failed: ${failureMessage(result)}`,
          );
      }
    } catch (error) {
      strapi.log.warn(`[sitemap-ai] IndexNow ping failed: ${messageOf(error)}`);
    }
    return outcome;
  }

  /** One attempt of one due delivery. */
  async function attempt(
    row: WebhookDeliveryRecord,
    now: Date,
    config: WebhooksConfig,
  ): Promise<keyof DeliveryRunSummary> {
    if (row.attempts >= config.maxAttempts) {
      // The last attempt was interrupted (a crash after its claim), or maxAttempts was lowered.
      const error = row.lastError ?? 'no attempts left';
      return (await repository.failed(row.id, row.attempts, {
        statusCode: row.lastStatusCode,
        error,
      }))
        ? 'failed'
        : 'skipped';
    }
    const subscriber = config.subscribers.find((s) => s.url === row.subscriberUrl);
    if (!subscriber) {
      const error = 'the subscriber is no longer configured';
      return (await repository.failed(row.id, row.attempts, {
        statusCode: row.lastStatusCode,
        error,
      }))
        ? 'failed'
        : 'skipped';
    }

    const number = row.attempts + 1;
    const retryAt = new Date(
      now.getTime() + backoffDelay(number, config.baseDelaySeconds, config.maxDelaySeconds) * 1000,
    );
    const leaseUntil = new Date(
      Math.max(retryAt.getTime(), now.getTime() + config.timeoutMs + CLAIM_GRACE_MS),
    );
    const claimed = await repository.claim(row.id, row.attempts, {
      attemptAt: now.toISOString(),
      leaseUntil: leaseUntil.toISOString(),
    });
    if (!claimed) return 'skipped';

    const result = await post(
      row.subscriberUrl,
      signedHeaders(subscriber.secret, row.payload, row.event, String(row.id)),
      row.payload,
      config.timeoutMs,
    );
    if (isSuccess(result.status)) {
      await repository.delivered(row.id, number, {
        statusCode: result.status,
        error: null,
        deliveredAt: now.toISOString(),
      });
      return 'delivered';
    }
    const error = failureMessage(result);
    if (number >= config.maxAttempts) {
      await repository.failed(row.id, number, { statusCode: result.status, error });
      strapi.log.warn(
        `[sitemap-ai] webhook ${row.id} to ${row.subscriberUrl} failed after ${number} attempts: ${error}`,
      );
      return 'failed';
    }
    await repository.retryAt(row.id, number, {
      statusCode: result.status,
      error,
      nextAttemptAt: retryAt.toISOString(),
    });
    strapi.log.debug(
      `[sitemap-ai] webhook ${row.id} attempt ${number} failed (${error}); next at ${retryAt.toISOString()}`,
    );
    return 'retrying';
  }

  let timer: ReturnType<typeof setInterval> | null = null;
  let running: Promise<void> | null = null;
  let lastPrune = 0;

  const service = {
    /**
     * Queue `event` for every subscriber of it (one row each; nothing is sent
     * here) and, when IndexNow is on, ping it with the changed page URLs.
     * IndexNow failures are logged, never thrown; a database failure is thrown.
     */
    async enqueue(
      event: WebhookEvent,
      options: { changedPageUrls?: readonly string[]; now?: Date } = {},
    ): Promise<EnqueueResult> {
      const created = (options.now ?? new Date()).toISOString();
      const payload = JSON.stringify(event);
      const deliveries: number[] = [];
      for (const subscriber of webhooks().subscribers) {
        if (!subscriber.events.includes(event.event)) continue;
        const row = await repository.create({
          subscriberUrl: subscriber.url,
          event: event.event,
          payload,
          created,
        });
        deliveries.push(row.id);
      }
      return { deliveries, indexNow: await pingIndexNow(options.changedPageUrls ?? []) };
    },

    /**
     * Send the pending deliveries due at `now`, in order per subscriber: each subscriber's
     * oldest pending delivery first, the next only once it was delivered (or given up). 2xx →
     * delivered; otherwise it is retried after an exponential backoff — and the subscriber's
     * later events wait — or `failed` after maxAttempts. Subscribers are served side by side.
     */
    async deliverDue(now: Date = new Date()): Promise<DeliveryRunSummary> {
      const config = webhooks();
      const summary: DeliveryRunSummary = { delivered: 0, retrying: 0, failed: 0, skipped: 0 };
      const nowIso = now.toISOString();
      const subscribers = await repository.pendingSubscribers();
      await forEachLimited(subscribers, SEND_CONCURRENCY, async (url) => {
        for (let sent = 0; sent < DUE_BATCH_SIZE; sent += 1) {
          const row = await repository.head(url);
          if (!row || row.nextAttemptAt > nowIso) return;
          let outcome: keyof DeliveryRunSummary;
          try {
            outcome = await attempt(row, now, config);
          } catch (error) {
            // A database error on one row: it stays claimed until its lease ends, then is retried.
            summary.skipped += 1;
            strapi.log.error(`[sitemap-ai] webhook ${row.id}: ${messageOf(error)}`);
            return;
          }
          summary[outcome] += 1;
          if (outcome !== 'delivered' && outcome !== 'failed') return;
        }
      });
      return summary;
    },

    /** The delivery log, newest first. */
    async log(query: WebhookLogQuery = {}): Promise<WebhookDelivery[]> {
      const limit = query.limit ?? LOG_LIMIT_DEFAULT;
      if (!Number.isInteger(limit) || limit < 1 || limit > LOG_LIMIT_MAX) {
        throw new InvalidParameterError('limit', `must be an integer from 1 to ${LOG_LIMIT_MAX}`);
      }
      if (
        query.status !== undefined &&
        !(WEBHOOK_DELIVERY_STATUSES as readonly string[]).includes(query.status)
      ) {
        throw new InvalidParameterError(
          'status',
          `must be one of ${WEBHOOK_DELIVERY_STATUSES.join(', ')}`,
        );
      }
      return repository.list({ limit, status: query.status as WebhookDeliveryStatus | undefined });
    },

    /** Send a signed `{ "event": "ping" }` to `url` now (Settings "send test event"); nothing is stored. */
    async sendTest(url: string, secret: string): Promise<WebhookTestResult> {
      if (typeof url !== 'string' || !isHttpUrl(url))
        throw new InvalidParameterError('url', 'must be an absolute http(s) URL');
      if (typeof secret !== 'string' || secret.length < WEBHOOK_SECRET_MIN_LENGTH) {
        throw new InvalidParameterError(
          'secret',
          `must be at least ${WEBHOOK_SECRET_MIN_LENGTH} characters`,
        );
      }
      const event = pingEvent();
      const rawBody = JSON.stringify(event);
      const result = await post(
        url,
        signedHeaders(secret, rawBody, event.event, 'test'),
        rawBody,
        webhooks().timeoutMs,
      );
      return {
        status: result.status,
        body: result.body,
        durationMs: result.durationMs,
        ...(result.error ? { error: result.error } : {}),
      };
    },

    /** Drop delivered and failed deliveries older than `deliveryLogRetentionDays`; returns how many. */
    async prune(now: Date = new Date()): Promise<number> {
      const cutoff = new Date(now.getTime() - webhooks().deliveryLogRetentionDays * DAY_MS);
      return repository.prune(cutoff.toISOString());
    },

    /** Start sending due deliveries every 5 s (runs never overlap). Call in bootstrap. */
    startDeliveryLoop(): void {
      if (timer) return;
      timer = setInterval(() => {
        if (running) return;
        running = (async () => {
          try {
            await service.deliverDue();
            if (Date.now() - lastPrune >= PRUNE_INTERVAL_MS) {
              lastPrune = Date.now();
              await service.prune();
            }
          } catch (error) {
            strapi.log.error(`[sitemap-ai] webhook delivery run failed: ${messageOf(error)}`);
          }
        })().finally(() => {
          running = null;
        });
      }, DELIVERY_LOOP_INTERVAL_MS);
      timer.unref();
    },

    /** Stop the loop and wait for a run in progress to finish. Call (and await) in destroy. */
    async stopDeliveryLoop(): Promise<void> {
      if (timer) clearInterval(timer);
      timer = null;
      if (running) await running;
    },
  };
  return service;
};

export type WebhookService = ReturnType<typeof createWebhookService>;
