/**
 * Contract of the webhook delivery log and the "send test event" button
 * (docs/protocol.md §8 events), shared by the server and the admin.
 */
import type { WebhookDeliveryStatus } from '../constants';

export type { WebhookDeliveryStatus };

/** One webhook delivery to one subscriber, as the delivery log shows it. */
export interface WebhookDelivery {
  id: number;
  subscriberUrl: string;
  event: string;
  /** The exact raw JSON body that is signed and sent. */
  payload: string;
  status: WebhookDeliveryStatus;
  attempts: number;
  /** When a pending delivery is tried next (ISO 8601). */
  nextAttemptAt: string;
  lastAttemptAt: string | null;
  /** HTTP status of the last attempt; null when no response came (refused, timed out). */
  lastStatusCode: number | null;
  lastError: string | null;
  deliveredAt: string | null;
  created: string;
}

export interface WebhookLogQuery {
  limit?: number;
  status?: WebhookDeliveryStatus;
}

/** Result of a signed `{ "event": "ping" }` sent at once to a URL. */
export interface WebhookTestResult {
  /** HTTP status of the answer; null when none came. */
  status: number | null;
  /** The first 2 KB of the answer's body. */
  body: string;
  durationMs: number;
  /** Why no answer came (connection refused, timeout, …). */
  error?: string;
}
