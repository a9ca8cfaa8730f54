import http, { type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  manifestUpdatedEvent,
  verifySignature,
  type ManifestUpdatedEvent,
} from '../../server/src/core/webhooks';
import { createWebhookRepository } from '../../server/src/repositories/webhook-repository';
import { createWebhookService, type WebhookService } from '../../server/src/services/webhooks';
import type { WebhookDelivery } from '../../shared/contracts/webhooks';
import { bootPlayground, testDatabases, type TestApp } from '../helpers/strapi';

const SECRET = 'whsec_integration_7c2e91d4a05b';
const HOOK_PATH = '/hooks/sitemap-ai';
const INDEXNOW_PATH = '/indexnow';
const INDEXNOW_KEY = 'b7e4-1f2a-9c3d';
const BASE_DELAY_SECONDS = 60;
const MAX_ATTEMPTS = 8; // the config default

interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** A webhook receiver on 127.0.0.1 that records every request and answers as told. */
function createReceiver() {
  const requests: ReceivedRequest[] = [];
  const answer = { status: 200, body: 'ok' };
  let server: http.Server | null = null;
  return {
    requests,
    answer,
    /** Listen on `port` (0: any free one); returns the port. */
    listen(port = 0): Promise<number> {
      const next = http.createServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on('data', (chunk: Buffer) => chunks.push(chunk));
        req.on('end', () => {
          requests.push({
            method: req.method ?? '',
            path: req.url ?? '',
            headers: req.headers,
            body: Buffer.concat(chunks).toString('utf8'),
          });
          res.writeHead(answer.status, { 'Content-Type': 'text/plain' });
          res.end(answer.body);
        });
      });
      server = next;
      return new Promise((resolve, reject) => {
        next.once('error', reject);
        next.listen(port, '127.0.0.1', () => resolve((next.address() as AddressInfo).port));
      });
    },
    async close(): Promise<void> {
      const current = server;
      server = null;
      if (!current) return;
      current.closeAllConnections();
      await new Promise<void>((resolve) => current.close(() => resolve()));
    },
    /** Webhook deliveries of the event for snapshot `id`. */
    deliveriesOf(id: string): ReceivedRequest[] {
      return requests.filter(
        (r) =>
          r.path === HOOK_PATH && (JSON.parse(r.body) as ManifestUpdatedEvent).snapshot?.id === id,
      );
    },
    indexNowPings(): ReceivedRequest[] {
      return requests.filter((r) => r.path === INDEXNOW_PATH);
    },
  };
}

function eventFor(id: string): ManifestUpdatedEvent {
  return manifestUpdatedEvent({
    snapshot: { id, created_at: '2025-03-01T12:00:00.000Z' },
    since: 'prev',
    counts: { added: 1, changed: 2, removed: 3 },
    deltaUrl: `http://127.0.0.1:1337/api/sitemap-ai/delta?since=${id}`,
  });
}

async function waitFor(condition: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe.each(testDatabases())('signed webhooks on %s', (client) => {
  const receiver = createReceiver();
  let port: number;
  let env: Record<string, string>;
  let app: TestApp;
  let webhooks: WebhookService;

  async function boot(database?: TestApp['database']): Promise<void> {
    app = await bootPlayground(client, { env, ...(database ? { database } : {}) });
    webhooks = app.strapi.plugin('sitemap-ai').service('webhooks') as WebhookService;
    // The tests drive deliveries themselves (with a chosen `now`); the loop has its own test.
    await webhooks.stopDeliveryLoop();
  }

  async function delivery(id: number): Promise<WebhookDelivery> {
    const row = (await webhooks.log({ limit: 500 })).find((d) => d.id === id);
    if (!row) throw new Error(`delivery ${id} not in the log`);
    return row;
  }

  beforeAll(async () => {
    port = await receiver.listen();
    env = {
      PLAYGROUND_SEED: 'false',
      SITEMAP_AI_WEBHOOK_URL: `http://127.0.0.1:${port}${HOOK_PATH}`,
      SITEMAP_AI_WEBHOOK_SECRET: SECRET,
      SITEMAP_AI_WEBHOOK_BASE_DELAY: String(BASE_DELAY_SECONDS),
      SITEMAP_AI_INDEXNOW: 'true',
      SITEMAP_AI_INDEXNOW_ENDPOINT: `http://127.0.0.1:${port}${INDEXNOW_PATH}`,
      SITEMAP_AI_INDEXNOW_KEY: INDEXNOW_KEY,
    };
    await boot();
    // Whatever start-up queued (the first snapshot's event) is sent now, so each test starts empty.
    await webhooks.deliverDue(new Date(Date.now() + 365 * 86_400_000));
    receiver.requests.length = 0;
  });

  afterAll(async () => {
    await app?.close();
    await receiver.close();
  });

  it('(a) queues one delivery per subscriber without sending, then delivers the exact body, signed, with its headers', async () => {
    // Given a published snapshot's event and its changed pages
    const event = eventFor('a');

    // When it is queued
    const queued = await webhooks.enqueue(event, {
      changedPageUrls: [
        'https://example.com/en/articles/geo',
        'https://example.com/en/articles/geo',
        'https://elsewhere.org/x',
      ],
    });

    // Then one row is pending and nothing went to the subscriber yet; IndexNow got the site's changed pages
    expect(queued.deliveries).toHaveLength(1);
    const id = queued.deliveries[0]!;
    expect(await delivery(id)).toMatchObject({
      status: 'pending',
      attempts: 0,
      event: 'manifest.updated',
      payload: JSON.stringify(event),
    });
    expect(receiver.deliveriesOf('a')).toHaveLength(0);
    expect(queued.indexNow).toEqual({ submitted: 1, statuses: [200] });
    const [ping] = receiver.indexNowPings();
    expect(ping!.method).toBe('POST');
    expect(ping!.headers['content-type']).toMatch(/^application\/json/);
    expect(JSON.parse(ping!.body)).toEqual({
      host: 'example.com',
      key: INDEXNOW_KEY,
      urlList: ['https://example.com/en/articles/geo'],
    });

    // When due deliveries are sent
    const summary = await webhooks.deliverDue();

    // Then the receiver got the exact stored body, with a signature it accepts and every header
    expect(summary).toEqual({ delivered: 1, retrying: 0, failed: 0, skipped: 0 });
    const [request] = receiver.deliveriesOf('a');
    expect(request!.method).toBe('POST');
    expect(request!.body).toBe(JSON.stringify(event));
    expect(JSON.parse(request!.body)).toEqual(event);
    const signature = request!.headers['x-sitemap-ai-signature'] as string;
    expect(signature).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    expect(verifySignature(signature, SECRET, request!.body, new Date())).toBe(true);
    expect(verifySignature(signature, 'some-other-secret-123', request!.body, new Date())).toBe(
      false,
    );
    expect(request!.headers['content-type']).toBe('application/json');
    expect(request!.headers['user-agent']).toBe('strapi-plugin-sitemap-ai');
    expect(request!.headers['x-sitemap-ai-delivery']).toBe(String(id));
    expect(request!.headers['x-sitemap-ai-event']).toBe('manifest.updated');
    const row = await delivery(id);
    expect(row).toMatchObject({
      status: 'delivered',
      attempts: 1,
      lastStatusCode: 200,
      lastError: null,
    });
    expect(row.deliveredAt).not.toBeNull();

    // And a second run sends nothing more
    expect(await webhooks.deliverDue()).toEqual({
      delivered: 0,
      retrying: 0,
      failed: 0,
      skipped: 0,
    });
    expect(receiver.deliveriesOf('a')).toHaveLength(1);
  });

  it('(b) keeps a delivery pending with a backoff while the receiver is down, and delivers it exactly once after', async () => {
    // Given the receiver is down
    await receiver.close();
    const queued = await webhooks.enqueue(eventFor('b'), {
      changedPageUrls: ['https://example.com/en/articles/b'],
    });
    const id = queued.deliveries[0]!;
    // (the IndexNow ping failed too: logged, not thrown)
    expect(queued.indexNow).toEqual({ submitted: 0, statuses: [null] });

    // When the first attempt is made
    const first = new Date();
    expect(await webhooks.deliverDue(first)).toEqual({
      delivered: 0,
      retrying: 1,
      failed: 0,
      skipped: 0,
    });

    // Then the row stays pending, attempts=1, next attempt one base delay later, and the error is kept
    const pending = await delivery(id);
    expect(pending).toMatchObject({ status: 'pending', attempts: 1, lastStatusCode: null });
    expect(pending.lastError).toMatch(/ECONNREFUSED|fetch failed/);
    expect(Date.parse(pending.nextAttemptAt)).toBe(first.getTime() + BASE_DELAY_SECONDS * 1000);
    expect(Date.parse(pending.nextAttemptAt)).toBeGreaterThan(Date.now());

    // When the receiver is back on the same port, but the backoff has not passed
    await receiver.listen(port);
    expect(await webhooks.deliverDue()).toEqual({
      delivered: 0,
      retrying: 0,
      failed: 0,
      skipped: 0,
    });
    expect(receiver.deliveriesOf('b')).toHaveLength(0);

    // When the backoff has passed
    const later = new Date(Date.parse(pending.nextAttemptAt) + 1000);
    expect(await webhooks.deliverDue(later)).toEqual({
      delivered: 1,
      retrying: 0,
      failed: 0,
      skipped: 0,
    });
    await webhooks.deliverDue(new Date(later.getTime() + 7 * 86_400_000));

    // Then the event arrived exactly once
    expect(receiver.deliveriesOf('b')).toHaveLength(1);
    expect(await delivery(id)).toMatchObject({
      status: 'delivered',
      attempts: 2,
      lastStatusCode: 200,
      lastError: null,
    });
  });

  it('(d) gives up after maxAttempts answers of 500, and the log shows the status and error', async () => {
    // Given a subscriber that answers 500
    receiver.answer.status = 500;
    receiver.answer.body = 'internal error: database is on fire';
    const id = (await webhooks.enqueue(eventFor('d'))).deliveries[0]!;

    try {
      // When every attempt is made as soon as it is due
      let now = new Date();
      const delays: number[] = [];
      for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt += 1) {
        const summary = await webhooks.deliverDue(now);
        expect(summary.delivered).toBe(0);
        const row = await delivery(id);
        expect(row.attempts).toBe(attempt);
        if (row.status === 'pending') {
          delays.push((Date.parse(row.nextAttemptAt) - now.getTime()) / 1000);
          now = new Date(Date.parse(row.nextAttemptAt));
        }
      }

      // Then the waits doubled, and the delivery ended failed after exactly maxAttempts requests
      expect(delays).toEqual([60, 120, 240, 480, 960, 1920, 3600]);
      expect(receiver.deliveriesOf('d')).toHaveLength(MAX_ATTEMPTS);
      const failed = await delivery(id);
      expect(failed).toMatchObject({
        status: 'failed',
        attempts: MAX_ATTEMPTS,
        lastStatusCode: 500,
      });
      expect(failed.lastError).toBe('HTTP 500: internal error: database is on fire');
      expect(
        (await webhooks.log({ status: 'failed' })).map((d) => [d.id, d.lastStatusCode]),
      ).toContainEqual([id, 500]);
      expect((await webhooks.log({ status: 'pending' })).map((d) => d.id)).not.toContain(id);

      // And it is never sent again
      await webhooks.deliverDue(new Date(now.getTime() + 30 * 86_400_000));
      expect(receiver.deliveriesOf('d')).toHaveLength(MAX_ATTEMPTS);
    } finally {
      receiver.answer.status = 200;
      receiver.answer.body = 'ok';
    }
  });

  it('(e) sendTest sends a signed ping at once and returns the answer (status, first 2 KB of body, duration)', async () => {
    // Given a receiver that accepts with a long body
    receiver.answer.status = 202;
    receiver.answer.body = `accepted ${'x'.repeat(5000)}`;
    const secret = 'whsec_settings_test_1234';
    const logBefore = await webhooks.log({ limit: 500 });

    try {
      // When a test event is sent from the Settings page
      const result = await webhooks.sendTest(`http://127.0.0.1:${port}/test-endpoint`, secret);

      // Then its answer comes back, the body cut at 2 KB
      expect(result.status).toBe(202);
      expect(result.body).toBe(receiver.answer.body.slice(0, 2048));
      expect(result.durationMs).toBeGreaterThanOrEqual(0);
      expect(result.error).toBeUndefined();
      const request = receiver.requests.find((r) => r.path === '/test-endpoint')!;
      expect(request.body).toBe('{"event":"ping"}');
      expect(request.headers['x-sitemap-ai-event']).toBe('ping');
      expect(
        verifySignature(
          request.headers['x-sitemap-ai-signature'] as string,
          secret,
          request.body,
          new Date(),
        ),
      ).toBe(true);
      // Nothing is queued or logged for a test
      expect(await webhooks.log({ limit: 500 })).toEqual(logBefore);
    } finally {
      receiver.answer.status = 200;
      receiver.answer.body = 'ok';
    }

    // When the URL does not answer, the result says why instead of throwing
    const closed = http.createServer();
    const closedPort = await new Promise<number>((resolve) =>
      closed.listen(0, '127.0.0.1', () => resolve((closed.address() as AddressInfo).port)),
    );
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const refused = await webhooks.sendTest(`http://127.0.0.1:${closedPort}/`, secret);
    expect(refused.status).toBeNull();
    expect(refused.error).toMatch(/ECONNREFUSED|fetch failed/);

    // And bad input is the caller's mistake (400), not a request (the class comes from the built plugin: match its shape)
    await expect(webhooks.sendTest('ftp://127.0.0.1/x', secret)).rejects.toMatchObject({
      name: 'InvalidParameterError',
      status: 400,
      parameter: 'url',
    });
    await expect(webhooks.sendTest(`http://127.0.0.1:${port}/`, 'short')).rejects.toMatchObject({
      name: 'InvalidParameterError',
      status: 400,
      parameter: 'secret',
    });
  });

  it('claims each attempt once: two racing senders (as two instances would be) deliver every event exactly once', async () => {
    // Given several queued events and a second sender on the same database
    const ids = ['r1', 'r2', 'r3', 'r4', 'r5'];
    for (const id of ids) await webhooks.enqueue(eventFor(id));
    const other = createWebhookService({ strapi: app.strapi });

    // When both send due deliveries at the same time
    const [mine, theirs] = await Promise.all([webhooks.deliverDue(), other.deliverDue()]);

    // Then every event arrived once, and between them they delivered each once
    for (const id of ids) expect(receiver.deliveriesOf(id), id).toHaveLength(1);
    expect(mine.delivered + theirs.delivered).toBe(ids.length);
    expect(mine.retrying + theirs.retrying + mine.failed + theirs.failed).toBe(0);

    // And a claim for an attempt that was already taken fails
    const repository = createWebhookRepository({ strapi: app.strapi });
    const id = (await webhooks.enqueue(eventFor('claim'))).deliveries[0]!;
    const at = {
      attemptAt: new Date().toISOString(),
      leaseUntil: new Date(Date.now() + 60_000).toISOString(),
    };
    expect(await repository.claim(id, 0, at)).toBe(true);
    expect(await repository.claim(id, 0, at)).toBe(false);
    expect(await delivery(id)).toMatchObject({ status: 'pending', attempts: 1 });
    // (a claimed attempt whose sender vanished is retried once its lease ends)
    await webhooks.deliverDue(new Date(Date.now() + 120_000));
    expect(receiver.deliveriesOf('claim')).toHaveLength(1);
    expect(await delivery(id)).toMatchObject({ status: 'delivered', attempts: 2 });
  });

  it('the delivery loop sends queued deliveries on its own and stops cleanly', async () => {
    // Given the loop runs
    webhooks.startDeliveryLoop();
    webhooks.startDeliveryLoop(); // idempotent
    try {
      // When an event is queued
      const id = (await webhooks.enqueue(eventFor('loop'))).deliveries[0]!;

      // Then it arrives within a tick, once
      await waitFor(() => receiver.deliveriesOf('loop').length > 0, 15_000);
      expect(receiver.deliveriesOf('loop')).toHaveLength(1);
      await expect(delivery(id)).resolves.toMatchObject({ status: 'delivered', attempts: 1 });
    } finally {
      await webhooks.stopDeliveryLoop();
    }
  });

  it('(c) survives a restart: a delivery queued before it is sent by the next instance', async () => {
    // Given a delivery queued, then Strapi stops before sending it
    const id = (await webhooks.enqueue(eventFor('c'))).deliveries[0]!;
    const database = app.database;
    await app.close({ keepDatabase: true });

    // When Strapi starts again on the same database
    await boot(database);

    // Then the delivery is still pending, and is delivered once
    expect(await delivery(id)).toMatchObject({ status: 'pending', attempts: 0 });
    expect(receiver.deliveriesOf('c')).toHaveLength(0);
    await webhooks.deliverDue();
    expect(receiver.deliveriesOf('c')).toHaveLength(1);
    expect(
      verifySignature(
        receiver.deliveriesOf('c')[0]!.headers['x-sitemap-ai-signature'] as string,
        SECRET,
        JSON.stringify(eventFor('c')),
        new Date(),
      ),
    ).toBe(true);
    expect(await delivery(id)).toMatchObject({ status: 'delivered', attempts: 1 });
  });

  it('keeps every event through a receiver outage across a restart, shows the failures meanwhile, then delivers each once, signed, in order', async () => {
    // Given nothing queued, and the receiver down (its port closed)
    await webhooks.deliverDue(new Date(Date.now() + 365 * 86_400_000));
    receiver.requests.length = 0;
    await receiver.close();
    const t0 = Date.now();
    const minutes = (n: number) => new Date(t0 + n * 60_000);
    const ids = [];
    for (const name of ['w1', 'w2'])
      ids.push((await webhooks.enqueue(eventFor(name))).deliveries[0]!);

    // When deliveries are tried over the next minutes, a restart in between, and more events come
    await webhooks.deliverDue(minutes(0));
    await webhooks.deliverDue(minutes(2));
    const database = app.database;
    await app.close({ keepDatabase: true });
    await boot(database);
    for (const name of ['w3', 'w4'])
      ids.push((await webhooks.enqueue(eventFor(name))).deliveries[0]!);
    await webhooks.deliverDue(minutes(5));

    // Then the delivery log shows the first event failing with the reason, and nothing lost
    const first = await delivery(ids[0]!);
    expect(first).toMatchObject({ status: 'pending', lastStatusCode: null });
    expect(first.attempts).toBeGreaterThanOrEqual(2);
    expect(first.lastError).toMatch(/ECONNREFUSED|connect|fetch failed/i);
    for (const id of ids.slice(1)) expect((await delivery(id)).status).toBe('pending');
    expect(receiver.requests.filter((r) => r.path === HOOK_PATH)).toHaveLength(0);

    // When the receiver is back (same address) and the backoffs have passed
    await receiver.listen(port);
    receiver.answer.status = 200;
    await webhooks.deliverDue(minutes(60 * 24));

    // Then each event arrived exactly once, signed, in the order it happened
    const received = receiver.requests.filter((r) => r.path === HOOK_PATH);
    expect(received.map((r) => (JSON.parse(r.body) as ManifestUpdatedEvent).snapshot.id)).toEqual([
      'w1',
      'w2',
      'w3',
      'w4',
    ]);
    for (const request of received)
      expect(
        verifySignature(
          request.headers['x-sitemap-ai-signature'] as string,
          SECRET,
          request.body,
          new Date(),
        ),
      ).toBe(true);
    for (const id of ids) expect((await delivery(id)).status).toBe('delivered');
    // … and a later run sends none of them again
    await webhooks.deliverDue(minutes(60 * 48));
    expect(receiver.requests.filter((r) => r.path === HOOK_PATH)).toHaveLength(4);
    console.log(
      `[webhook outage ${client}] ${received.length} events delivered once each, in order, signed; the first after ${first.attempts} refused attempts and a restart`,
    );
  });

  it('prunes finished deliveries older than the retention, and keeps pending ones', async () => {
    // Given the log holds delivered and failed rows from this run
    const before = await webhooks.log({ limit: 500 });
    expect(before.some((d) => d.status !== 'pending')).toBe(true);

    // When pruned as of today, nothing is old enough
    expect(await webhooks.prune()).toBe(0);

    // When pruned 31 days later, every finished row goes
    const pendingId = (await webhooks.enqueue(eventFor('prune'))).deliveries[0]!;
    const removed = await webhooks.prune(new Date(Date.now() + 31 * 86_400_000));
    expect(removed).toBe(before.filter((d) => d.status !== 'pending').length);
    expect((await webhooks.log({ limit: 500 })).map((d) => d.id)).toEqual([
      pendingId,
      ...before.filter((d) => d.status === 'pending').map((d) => d.id),
    ]);
  });

  it("delivers a subscriber's events in order: a later event waits for an earlier one's retry", async () => {
    // Given nothing queued, and a receiver that fails the first event once
    receiver.answer.status = 200;
    await webhooks.deliverDue(new Date(Date.now() + 365 * 86_400_000));
    receiver.answer.status = 500;
    await webhooks.enqueue(eventFor('o1'));
    expect((await webhooks.deliverDue()).retrying).toBe(1);
    receiver.answer.status = 200;

    // When two later events are queued while the first waits for its retry
    await webhooks.enqueue(eventFor('o2'));
    await webhooks.enqueue(eventFor('o3'));
    const meanwhile = await webhooks.deliverDue();

    // Then they wait behind it …
    expect(meanwhile.delivered).toBe(0);
    expect(receiver.deliveriesOf('o2')).toHaveLength(0);
    // … and once its backoff has passed, all three arrive, in the order they happened.
    const later = await webhooks.deliverDue(new Date(Date.now() + 7 * 86_400_000));
    expect(later.delivered).toBe(3);
    const order = receiver.requests
      .filter((r) => r.path === HOOK_PATH)
      .map((r) => (JSON.parse(r.body) as ManifestUpdatedEvent).snapshot.id)
      .filter((id) => /^o\d$/.test(id));
    expect(order).toEqual(['o1', 'o1', 'o2', 'o3']);
  });
});

describe.each(testDatabases())('manifest.updated after a rebuild on %s', (client) => {
  const receiver = createReceiver();
  let app: TestApp;
  let webhooks: WebhookService;

  beforeAll(async () => {
    const port = await receiver.listen();
    app = await bootPlayground(client, {
      env: {
        SITEMAP_AI_WEBHOOK_URL: `http://127.0.0.1:${port}${HOOK_PATH}`,
        SITEMAP_AI_WEBHOOK_SECRET: SECRET,
        SITEMAP_AI_INDEXNOW: 'true',
        SITEMAP_AI_INDEXNOW_ENDPOINT: `http://127.0.0.1:${port}${INDEXNOW_PATH}`,
        SITEMAP_AI_INDEXNOW_KEY: INDEXNOW_KEY,
      },
    });
    webhooks = app.strapi.plugin('sitemap-ai').service('webhooks') as WebhookService;
    await webhooks.stopDeliveryLoop();
    await webhooks.deliverDue(new Date(Date.now() + 365 * 86_400_000));
    receiver.requests.length = 0;
  });

  afterAll(async () => {
    await app?.close();
    await receiver.close();
  });

  it('signs and sends the snapshot, since, counts and delta_url of a published change, and pings IndexNow with its page', async () => {
    // Given the current snapshot S and an editor's published change to an article
    const previous = (
      await app.http.get('/api/sitemap-ai/manifest').query({ limit: '1' }).expect(200)
    ).body as {
      snapshot: { id: string };
    };
    const documents = app.strapi.documents('api::article.article' as never);
    const draft = (await documents.findFirst({
      filters: { slug: 'geo-index' },
      locale: 'en',
      status: 'draft',
    } as never)) as unknown as {
      documentId: string;
      body: string;
    };
    await documents.update({
      documentId: draft.documentId,
      locale: 'en',
      data: { body: `${draft.body}\n\n## A section added for the webhook test\n\nNew text.` },
    } as never);
    await documents.publish({ documentId: draft.documentId, locale: 'en' } as never);

    // When the next snapshot is built and due deliveries are sent
    const result = (await app.strapi
      .plugin('sitemap-ai')
      .service('snapshot-builder')
      .rebuild({ trigger: 'test' })) as {
      skipped: boolean;
      snapshot: {
        seq: number;
        builtAt: string;
        changes: { added: number; changed: number; removed: number };
      };
    };
    expect(result.skipped).toBe(false);
    await webhooks.deliverDue();

    // Then the subscriber got one signed manifest.updated for it, pointing at the delta since S
    const deliveries = receiver.requests.filter((r) => r.path === HOOK_PATH);
    expect(deliveries).toHaveLength(1);
    const body = JSON.parse(deliveries[0]!.body) as ManifestUpdatedEvent;
    expect(body).toEqual({
      event: 'manifest.updated',
      snapshot: { id: String(result.snapshot.seq), created_at: result.snapshot.builtAt },
      since: previous.snapshot.id,
      counts: result.snapshot.changes,
      delta_url: expect.stringContaining(`/api/sitemap-ai/delta?since=${previous.snapshot.id}`),
    });
    expect(result.snapshot.changes.added).toBeGreaterThanOrEqual(1);
    expect(
      verifySignature(
        deliveries[0]!.headers['x-sitemap-ai-signature'] as string,
        SECRET,
        deliveries[0]!.body,
        new Date(),
      ),
    ).toBe(true);

    // And IndexNow was told about the article's page
    const pings = receiver
      .indexNowPings()
      .map((r) => JSON.parse(r.body) as { host: string; urlList: string[] });
    expect(pings).toHaveLength(1);
    expect(pings[0]!.host).toBe('example.com');
    expect(pings[0]!.urlList).toContain('https://example.com/en/articles/geo-index');
  });
});
