import type { Core } from '@strapi/strapi';
import type { WebhookDeliveryStatus } from '../../../shared/constants';
import type { WebhookDelivery } from '../../../shared/contracts/webhooks';

export const WEBHOOK_DELIVERY_UID = 'plugin::sitemap-ai.webhook-delivery' as const;

/** `last_error` is a 255-character column. */
const ERROR_MAX_LENGTH = 255;

/** One webhook delivery: the retry queue and the delivery log (docs/protocol.md §8 events). */
export type WebhookDeliveryRecord = WebhookDelivery;

export interface NewWebhookDelivery {
  subscriberUrl: string;
  event: string;
  payload: string;
  created: string;
}

/** What an attempt's outcome writes (besides the status). */
export interface AttemptOutcome {
  statusCode: number | null;
  error: string | null;
}

interface DeliveryRow {
  id: number;
  subscriber_url: string;
  event: string;
  payload: string;
  status: WebhookDeliveryStatus;
  attempts: number | string;
  next_attempt_at: string;
  last_attempt_at: string | null;
  last_status_code: number | string | null;
  last_error: string | null;
  delivered_at: string | null;
  created: string;
}

function toRecord(row: DeliveryRow): WebhookDeliveryRecord {
  return {
    id: Number(row.id),
    subscriberUrl: row.subscriber_url,
    event: row.event,
    payload: row.payload,
    status: row.status,
    attempts: Number(row.attempts ?? 0),
    nextAttemptAt: row.next_attempt_at,
    lastAttemptAt: row.last_attempt_at ?? null,
    lastStatusCode:
      row.last_status_code === null || row.last_status_code === undefined
        ? null
        : Number(row.last_status_code),
    lastError: row.last_error ?? null,
    deliveredAt: row.delivered_at ?? null,
    created: row.created,
  };
}

function truncateError(error: string | null): string | null {
  if (error === null) return null;
  return error.length > ERROR_MAX_LENGTH ? `${error.slice(0, ERROR_MAX_LENGTH - 1)}…` : error;
}

/**
 * Webhook deliveries: the only code that reads or writes their table. Every
 * state change after the claim is conditional on (status, attempts), so an
 * instance that lost its claim cannot overwrite another's outcome.
 */
export const createWebhookRepository = ({ strapi }: { strapi: Core.Strapi }) => {
  const query = () => strapi.db.query(WEBHOOK_DELIVERY_UID);

  /** Update one pending row only if it is still at attempt `attempts`; true when this call changed it. */
  async function updateIfAt(
    id: number,
    attempts: number,
    data: Record<string, unknown>,
  ): Promise<boolean> {
    const result = (await query().updateMany({
      where: { id, status: 'pending', attempts },
      data,
    })) as { count: number };
    return Number(result.count) === 1;
  }

  return {
    /** Queue a delivery, due at once. */
    async create(delivery: NewWebhookDelivery): Promise<WebhookDeliveryRecord> {
      const row = (await query().create({
        data: {
          subscriber_url: delivery.subscriberUrl,
          event: delivery.event,
          payload: delivery.payload,
          status: 'pending',
          attempts: 0,
          next_attempt_at: delivery.created,
          created: delivery.created,
        },
      })) as DeliveryRow;
      return toRecord(row);
    },

    async find(id: number): Promise<WebhookDeliveryRecord | null> {
      const row = (await query().findOne({ where: { id } })) as DeliveryRow | null;
      return row ? toRecord(row) : null;
    },

    /** Subscribers with pending deliveries. */
    async pendingSubscribers(): Promise<string[]> {
      const rows = (await query().findMany({
        where: { status: 'pending' },
        select: ['subscriber_url'],
      })) as Pick<DeliveryRow, 'subscriber_url'>[];
      return [...new Set(rows.map((row) => row.subscriber_url))].sort();
    },

    /**
     * A subscriber's oldest pending delivery (queued first): the only one that may be sent, so
     * each subscriber receives its events in the order they happened, a later one waiting for
     * an earlier one's retries.
     */
    async head(subscriberUrl: string): Promise<WebhookDeliveryRecord | null> {
      const row = (await query().findOne({
        where: { status: 'pending', subscriber_url: subscriberUrl },
        orderBy: { id: 'asc' },
      })) as DeliveryRow | null;
      return row ? toRecord(row) : null;
    },

    /**
     * Claim attempt `seen + 1` of a pending delivery: only one caller (of any
     * instance) wins. The claim pushes `next_attempt_at` to `leaseUntil`, so a
     * crash mid-send leaves the row to be retried after that, never lost.
     */
    claim(
      id: number,
      seen: number,
      at: { attemptAt: string; leaseUntil: string },
    ): Promise<boolean> {
      return updateIfAt(id, seen, {
        attempts: seen + 1,
        last_attempt_at: at.attemptAt,
        next_attempt_at: at.leaseUntil,
      });
    },

    delivered(
      id: number,
      attempts: number,
      outcome: AttemptOutcome & { deliveredAt: string },
    ): Promise<boolean> {
      return updateIfAt(id, attempts, {
        status: 'delivered',
        delivered_at: outcome.deliveredAt,
        last_status_code: outcome.statusCode,
        last_error: null,
      });
    },

    /** A failed attempt with attempts left: the row waits until `nextAttemptAt`. */
    retryAt(
      id: number,
      attempts: number,
      outcome: AttemptOutcome & { nextAttemptAt: string },
    ): Promise<boolean> {
      return updateIfAt(id, attempts, {
        next_attempt_at: outcome.nextAttemptAt,
        last_status_code: outcome.statusCode,
        last_error: truncateError(outcome.error),
      });
    },

    /** The last attempt failed (or the delivery cannot be sent any more). */
    failed(id: number, attempts: number, outcome: AttemptOutcome): Promise<boolean> {
      return updateIfAt(id, attempts, {
        status: 'failed',
        last_status_code: outcome.statusCode,
        last_error: truncateError(outcome.error),
      });
    },

    /** Newest first, optionally one status only. */
    async list(options: {
      limit: number;
      status?: WebhookDeliveryStatus;
    }): Promise<WebhookDeliveryRecord[]> {
      const rows = (await query().findMany({
        where: options.status ? { status: options.status } : {},
        orderBy: { id: 'desc' },
        limit: options.limit,
      })) as DeliveryRow[];
      return rows.map(toRecord);
    },

    /** Drop finished (delivered or failed) deliveries created before `beforeIso`; returns how many. */
    async prune(beforeIso: string): Promise<number> {
      const result = (await query().deleteMany({
        where: { status: { $in: ['delivered', 'failed'] }, created: { $lt: beforeIso } },
      })) as { count: number };
      return Number(result.count);
    },
  };
};

export type WebhookRepository = ReturnType<typeof createWebhookRepository>;
