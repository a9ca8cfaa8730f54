import { execFile } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pseudonymiseClient, utcDay } from '../../server/src/core/access-log';
import { ITEM_CHECK_IDS } from '../../server/src/core/readiness';
import { MANIFEST_SCHEMA } from '../../server/src/core/schema';
import type { DashboardData, IngestRow, ReadinessCheck } from '../../shared/contracts/admin';
import type { ManifestItem, ManifestPage } from '../../shared/contracts/manifest';
import { roleToken, superAdminToken } from '../helpers/admin';
import { API, pathOf, sha256 } from '../helpers/manifest';
import { ROOT, bootPlayground, testDatabases, type TestApp } from '../helpers/strapi';
import { storedData } from '../helpers/stored';
import type { AccessLogRecord } from '../../server/src/repositories/access-log-repository';

const CLI = path.join(ROOT, 'bin', 'sitemap-ai-validate.js');

/** Real User-Agent strings as the crawlers send them. */
const GPTBOT =
  'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)';
const CLAUDEBOT =
  'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; ClaudeBot/1.0; +claudebot@anthropic.com)';
const PERPLEXITY =
  'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; PerplexityBot/1.0; +https://perplexity.ai/perplexitybot)';

type LogEntry = AccessLogRecord;

/** Run the CLI as a child process (asynchronously: the Strapi under test answers in this very thread). */
function runCli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [CLI, ...args],
      { timeout: 120_000, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const code = error
          ? typeof (error as { code?: unknown }).code === 'number'
            ? (error as { code: number }).code
            : -1
          : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

function row(ingest: IngestRow[], agent: string, type: string): IngestRow | undefined {
  return ingest.find((r) => r.agent === agent && r.type === type);
}

describe.each(testDatabases())(
  'dashboard, access log, readiness and the CLI validator on %s',
  (client) => {
    let app: TestApp;
    let owner: string;
    let editor: string;
    const accessLog = () =>
      app.strapi.plugin('sitemap-ai').service('access-log') as {
        flush(): Promise<void>;
        prune(now?: Date): Promise<number>;
        list(limit?: number): Promise<LogEntry[]>;
        record(hit: object): void;
        stop(): Promise<void>;
      };
    const dashboard = async (query = ''): Promise<DashboardData> => {
      await accessLog().flush();
      const res = await app.http
        .get(`/sitemap-ai/dashboard${query}`)
        .set('Authorization', `Bearer ${owner}`);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return res.body.data as DashboardData;
    };
    /** Edit the English draft of the geo-index article and publish it. */
    const publishGeoIndexEdit = async (edit: (body: string) => string): Promise<void> => {
      const documents = app.strapi.documents('api::article.article' as never) as unknown as {
        findFirst(p: object): Promise<{ documentId: string; body: string }>;
        update(p: object): Promise<unknown>;
        publish(p: object): Promise<unknown>;
      };
      const doc = await documents.findFirst({
        filters: { slug: 'geo-index' },
        locale: 'en',
        status: 'draft',
      });
      await documents.update({
        documentId: doc.documentId,
        locale: 'en',
        data: { body: edit(doc.body) },
      });
      await documents.publish({ documentId: doc.documentId, locale: 'en' });
    };
    const rebuild = () =>
      app.strapi.plugin('sitemap-ai').service('snapshot-builder').rebuild({ trigger: 'test' });
    const check = (data: DashboardData, id: string) =>
      data.readiness.find((c) => c.id === id) as ReadinessCheck;

    beforeAll(async () => {
      app = await bootPlayground(client);
      owner = await superAdminToken(app);
      editor = await roleToken(app, 'strapi-editor', 'editor@example.com');
    });

    afterAll(async () => {
      if (!app) return;
      await accessLog().stop();
      await app.close();
    });

    it('refuses the dashboard without an admin token (401) and to an Editor (403), and validates its query', async () => {
      expect((await app.http.get('/sitemap-ai/dashboard')).status).toBe(401);
      expect(
        (await app.http.get('/sitemap-ai/dashboard').set('Authorization', `Bearer ${editor}`))
          .status,
      ).toBe(403);
      for (const query of ['?fresh=yes', '?since=1']) {
        const res = await app.http
          .get(`/sitemap-ai/dashboard${query}`)
          .set('Authorization', `Bearer ${owner}`);
        expect(res.status, query).toBe(400);
      }
    });

    it('Given GPTBot and ClaudeBot reading the manifest, fragments and content, Then the dashboard shows their ingest by agent and fragment type', async () => {
      // Given: GPTBot reads a manifest page and two fragments; ClaudeBot reads content and one missing fragment.
      const page = (
        await app.http
          .get(`${API}/manifest`)
          .query({ limit: 1000 })
          .set('User-Agent', GPTBOT)
          .expect(200)
      ).body as ManifestPage;
      const sections = page.items.filter((i) => i.type === 'section').slice(0, 2);
      const figure = page.items.find((i) => i.type === 'figure')!;
      for (const item of sections)
        await app.http.get(`${API}/fragments/${item.id}`).set('User-Agent', GPTBOT).expect(200);
      await app.http.get(pathOf(figure.content_url)).set('User-Agent', CLAUDEBOT).expect(200);
      await app.http.get(pathOf(sections[0]!.content_url)).set('User-Agent', CLAUDEBOT).expect(200);
      await app.http
        .get(`${API}/fragments/article:no-such-page:en`)
        .set('User-Agent', CLAUDEBOT)
        .expect(404);
      await app.http
        .get(`${API}/delta`)
        .query({ since: page.snapshot.id })
        .set('User-Agent', PERPLEXITY)
        .expect(200);
      await app.http.get(`${API}/schema.json`).expect(200);

      // When the dashboard is read
      const data = await dashboard();

      // Then
      expect(row(data.ingest, 'GPTBot', 'manifest')).toMatchObject({ requests: 1, ok: 1 });
      expect(row(data.ingest, 'GPTBot', 'section')).toMatchObject({ requests: 2, ok: 2 });
      expect(row(data.ingest, 'ClaudeBot', 'figure')).toMatchObject({ requests: 1, ok: 1 });
      expect(row(data.ingest, 'ClaudeBot', 'section')).toMatchObject({ requests: 1, ok: 1 });
      // A fragment that does not exist: counted under its route, not successful.
      expect(row(data.ingest, 'ClaudeBot', 'fragment')).toMatchObject({ requests: 1, ok: 0 });
      expect(row(data.ingest, 'PerplexityBot', 'delta')).toMatchObject({ requests: 1, ok: 1 });
      expect(row(data.ingest, 'unknown', 'schema')).toMatchObject({ requests: 1, ok: 1 });
      expect(data.ingestWindowDays).toBe(30);

      const entries = await accessLog().list();
      const served = entries.find((e) => e.agent === 'GPTBot' && e.itemId === sections[0]!.id)!;
      expect(served).toMatchObject({
        route: 'fragment',
        itemType: 'section',
        servedVersion: sections[0]!.version,
        status: 200,
        drift: false,
      });
    });

    it('stores a pseudonym of the client, the same within the day, and no IP address anywhere in the table', async () => {
      const entries = await accessLog().list();
      expect(entries.length).toBeGreaterThan(5);
      for (const entry of entries) expect(entry.client).toMatch(/^[0-9a-f]{64}$/);
      // Every request came from this machine: one pseudonym for all of them today.
      expect(new Set(entries.map((e) => e.client)).size).toBe(1);

      const meta = app.strapi.db.metadata.get('plugin::sitemap-ai.access-log-entry');
      const raw = JSON.stringify(await app.strapi.db.getConnection(meta.tableName).select('*'));
      for (const address of ['127.0.0.1', '::1', '::ffff:', 'localhost'])
        expect(raw).not.toContain(address);

      // It is the HMAC of the address under today's salt (kept in the database for this day only).
      const salts = (await app.strapi.db
        .query('plugin::sitemap-ai.access-log-salt')
        .findMany({})) as { day: string; salt: string }[];
      expect(salts.map((s) => s.day)).toEqual([utcDay(new Date())]);
      const candidates = ['::ffff:127.0.0.1', '127.0.0.1', '::1'].map((ip) =>
        pseudonymiseClient(ip, salts[0]!.salt),
      );
      expect(candidates).toContain(entries[0]!.client);
    });

    it('records drift when an agent asks with an older version than the current one, and none for a 304', async () => {
      const id = 'article:geo-index:en:intro';
      const fragment = await app.http
        .get(`${API}/fragments/${id}`)
        .set('User-Agent', GPTBOT)
        .expect(200);
      const content = await app.http
        .get(`${API}/fragments/${id}/content`)
        .set('User-Agent', GPTBOT)
        .expect(200);
      const before = fragment.body.item as ManifestItem;

      // The intro changes and a new snapshot is published.
      await publishGeoIndexEdit((body) => `A new first sentence of the intro. ${body}`);
      await rebuild();

      const stale = await app.http
        .get(`${API}/fragments/${id}`)
        .set('User-Agent', GPTBOT)
        .set('If-None-Match', String(fragment.headers.etag))
        .expect(200);
      const after = stale.body.item as ManifestItem;
      expect(after.version).not.toBe(before.version);
      await app.http
        .get(`${API}/fragments/${id}/content`)
        .set('User-Agent', CLAUDEBOT)
        .set('If-None-Match', String(content.headers.etag))
        .expect(200);
      await app.http
        .get(`${API}/fragments/${id}`)
        .set('User-Agent', GPTBOT)
        .set('If-None-Match', String(stale.headers.etag))
        .expect(304);

      await accessLog().flush();
      const entries = (await accessLog().list()).filter((e) => e.itemId === id);
      const last = entries.slice(-3);
      expect(last[0]).toMatchObject({
        route: 'fragment',
        drift: true,
        clientVersion: before.version,
        servedVersion: after.version,
        status: 200,
      });
      expect(last[1]).toMatchObject({
        route: 'content',
        agent: 'ClaudeBot',
        drift: true,
        servedVersion: after.version,
      });
      expect(last[2]).toMatchObject({ route: 'fragment', drift: false, status: 304 });
      const data = await dashboard();
      expect(row(data.ingest, 'GPTBot', 'section')!.drift).toBeGreaterThanOrEqual(1);
    });

    it('logs the item an old id answered with: its current id, type and version, as the route served it', async () => {
      // Given a heading renamed since an agent learnt its id (the old id is an alias now)
      const oldId = 'article:geo-index:en:a-minimal-sitemap-ai-format';
      const newId = 'article:geo-index:en:a-smaller-sitemap-ai-format';
      await publishGeoIndexEdit((body) => {
        expect(body).toContain('## A minimal sitemap-AI format');
        return body.replace('## A minimal sitemap-AI format', '## A smaller sitemap-AI format');
      });
      await rebuild();

      // When an agent asks for the old id, and for its content
      const fragment = await app.http
        .get(`${API}/fragments/${oldId}`)
        .set('User-Agent', GPTBOT)
        .expect(200);
      const served = fragment.body.item as ManifestItem;
      expect(served.id).toBe(newId);
      await app.http.get(`${API}/fragments/${oldId}/content`).set('User-Agent', GPTBOT).expect(200);

      // Then both entries name the item served, not the id asked for
      await accessLog().flush();
      const last = (await accessLog().list()).filter((e) => e.agent === 'GPTBot').slice(-2);
      expect(last).toMatchObject([
        { route: 'fragment', itemId: newId, itemType: 'section', servedVersion: served.version },
        { route: 'content', itemId: newId, itemType: 'section', servedVersion: served.version },
      ]);
    });

    it('deletes entries older than the retention (and past days’ salts), and counts only the window', async () => {
      const old = new Date(Date.now() - 40 * 86_400_000).toISOString();
      for (const agent of ['CCBot', 'CCBot', 'Bytespider']) {
        accessLog().record({
          at: old,
          agent,
          route: 'manifest',
          itemId: null,
          status: 200,
          ip: '203.0.113.7',
          validators: { versions: [], checksums: [] },
        });
      }
      await accessLog().flush();
      expect((await accessLog().list(10_000)).filter((e) => e.at === old)).toHaveLength(3);
      const data = await dashboard();
      // Outside the 30-day window: not in the ingest.
      expect(row(data.ingest, 'CCBot', 'manifest')).toBeUndefined();
      const salts = app.strapi.db.query('plugin::sitemap-ai.access-log-salt');
      expect(await salts.count({ where: { day: utcDay(old) } })).toBe(1);

      const recent = (await accessLog().list(10_000)).filter((e) => e.at !== old).length;
      const deleted = await accessLog().prune();
      expect(deleted).toBe(3);
      const left = await accessLog().list(10_000);
      expect(left.filter((e) => e.at === old)).toHaveLength(0);
      expect(left).toHaveLength(recent);
      expect(await salts.count({ where: { day: utcDay(old) } })).toBe(0);
      expect(JSON.stringify(left)).not.toContain('203.0.113.7');
    });

    it('computes the readiness checklist of the seeded playground: which checks pass, and failing items link to their entries', async () => {
      const data = await dashboard('?fresh=true');
      expect(data.readiness.map((c) => c.id)).toEqual([
        'required-fields',
        'permalinks',
        'changelog-90-days',
        'evidence',
        'embedding-hints',
        'delta-and-paging',
        'schema-valid',
        'policy',
      ]);
      for (const id of [
        'required-fields',
        'permalinks',
        'changelog-90-days',
        'embedding-hints',
        'delta-and-paging',
        'schema-valid',
        'policy',
      ]) {
        expect(
          check(data, id).ok,
          `${id}: ${check(data, id).summary} ${JSON.stringify(check(data, id).failures.slice(0, 2))}`,
        ).toBe(true);
        expect(check(data, id).failureCount).toBe(0);
      }
      // The seed has entries without evidence links: coverage is below the 90 % target.
      const evidence = check(data, 'evidence');
      expect(evidence.ok).toBe(false);
      expect(data.evidenceCoverage).toBeGreaterThan(0.3);
      expect(data.evidenceCoverage).toBeLessThan(0.9);
      expect(evidence.summary).toMatch(
        /of \d+ fragments \(\d+ %\) have an evidence link; target ≥ 90 %/,
      );
      expect(evidence.failureCount).toBeGreaterThan(0);
      expect(evidence.failures.length).toBe(Math.min(50, evidence.failureCount));

      // A failing item names its entry and links to its edit view in its locale.
      const failure = evidence.failures.find((f) => f.uid === 'api::article.article')!;
      expect(failure).toBeDefined();
      const locale = failure.locale!;
      const entry = (await app.strapi.documents('api::article.article' as never).findOne({
        documentId: failure.documentId,
        locale,
        status: 'published',
      } as never)) as { documentId: string; slug: string } | null;
      expect(entry?.documentId).toBe(failure.documentId);
      expect(failure.itemId.startsWith(`article:${entry!.slug}:${locale}`)).toBe(true);
      expect(failure.editPath).toBe(
        `/content-manager/collection-types/api::article.article/${failure.documentId}?plugins[i18n][locale]=${locale}`,
      );
      expect(failure.title).not.toBe('');

      // Guides are not localized: no locale in their edit path.
      const guide = evidence.failures.find((f) => f.uid === 'api::guide.guide');
      if (guide) {
        expect(guide.locale).toBeNull();
        expect(guide.editPath).toBe(
          `/content-manager/collection-types/api::guide.guide/${guide.documentId}`,
        );
      }

      expect(data.snapshots.length).toBeGreaterThan(1);
      expect(data.snapshots[0]).toMatchObject({
        id: expect.stringMatching(/^\d+$/),
        item_count: expect.any(Number),
        trigger: expect.any(String),
      });
      expect(data.pendingChanges).toBe(0);
      expect(data.dirtyEntries).toBe(0);
      expect(data.freshnessHours).toBe(0);
    });

    it('Given two dashboards opened at once, When the checklist is computed, Then it is computed once for both, and asked fresh again afterwards it is computed anew', async () => {
      const readiness = app.strapi.plugin('sitemap-ai').service('readiness') as {
        check(options?: { fresh?: boolean }): Promise<{ checkedAt: string; durationMs: number }>;
      };
      const [first, second] = await Promise.all([
        readiness.check({ fresh: true }),
        readiness.check({ fresh: true }),
      ]);
      expect(second).toBe(first);
      expect(first.durationMs).toBeGreaterThanOrEqual(0);
      const again = await readiness.check({ fresh: true });
      expect(again).not.toBe(first);
      expect(again.checkedAt >= first.checkedAt).toBe(true);
    });

    it('Given a checklist that takes longer than the dashboard waits, When the dashboard is read, Then it answers with the last checklist computed, says the current one is being computed, and has it once it is done', async () => {
      type Report = {
        snapshot: string;
        checkedAt: string;
        checks: ReadinessCheck[];
        evidenceCoverage: number;
      };
      const readiness = app.strapi.plugin('sitemap-ai').service('readiness') as {
        check(options?: { fresh?: boolean }): Promise<Report>;
      };
      const service = app.strapi.plugin('sitemap-ai').service('dashboard') as {
        data(options: { fresh?: boolean; readinessWaitMs?: number }): Promise<DashboardData>;
      };
      const before = await readiness.check({ fresh: true });
      const waiting = await service.data({ fresh: true, readinessWaitMs: 0 });
      expect(waiting.readinessComputing).toBe(true);
      expect(waiting.readinessCheckedAt).toBe(before.checkedAt);
      expect(waiting.readinessSnapshot).toBe(before.snapshot);
      expect(waiting.readiness).toEqual(before.checks);
      expect(waiting.evidenceCoverage).toBeCloseTo(before.evidenceCoverage, 4);
      // The other figures do not wait for the checklist.
      expect(waiting.snapshots.length).toBeGreaterThan(0);
      // The computation went on; asking now shares it (or, ended, computes anew): a newer checklist.
      const computed = await readiness.check({ fresh: true });
      expect(computed).not.toBe(before);
      const done = await service.data({});
      expect(done.readinessComputing).toBeUndefined();
      expect(done.readinessCheckedAt).toBe(computed.checkedAt);
      expect(done.readinessSnapshot).toBe(computed.snapshot);
    });

    it('Given a checklist paging through the snapshot, When a timer is due, Then it fires between pages, not after the last (SQLite runs queries synchronously)', async () => {
      const readiness = app.strapi.plugin('sitemap-ai').service('readiness') as {
        check(options: { now: Date; pageLimit: number }): Promise<{ items: number }>;
      };
      let pagedAll = false;
      // A page of one item: as many pages as items (a large site's crawl, made small).
      const report = readiness.check({ now: new Date(), pageLimit: 1 }).then((done) => {
        pagedAll = true;
        return done;
      });
      await new Promise((resolve) => setTimeout(resolve, 0));
      expect(pagedAll).toBe(false);
      expect((await report).items).toBeGreaterThan(10);
    });

    it('shows pending changes and freshness while a publish waits for the next snapshot', async () => {
      await publishGeoIndexEdit((body) => `${body}\n\nA closing line.`);
      const waiting = await dashboard();
      expect(waiting.pendingChanges).toBeGreaterThan(0);
      expect(waiting.freshnessHours).toBeGreaterThanOrEqual(0);
      expect(waiting.freshnessHours).toBeLessThan(1);
      await app.strapi
        .plugin('sitemap-ai')
        .service('snapshot-builder')
        .rebuild({ trigger: 'test' });
      const published = await dashboard();
      expect(published.pendingChanges).toBe(0);
      expect(published.freshnessHours).toBe(0);
      expect(published.snapshots[0]!.id).not.toBe(waiting.snapshots[0]!.id);
    });

    it('names a broken item in required-fields and schema-valid, with its entry', async () => {
      const manifest = app.strapi.plugin('sitemap-ai').service('manifest');
      const snapshot = await manifest.current();
      const id = 'article:geo-index:en:intro';
      const query = app.strapi.db.query('plugin::sitemap-ai.item-version');
      const row = (await query.findOne({
        where: { item_id: id, seq_to: { $gt: snapshot.seq }, seq_from: { $lte: snapshot.seq } },
      })) as { id: number };
      const stored = await storedData(app.strapi, 'plugin::sitemap-ai.item-version', row.id);
      const original = stored.data;
      const { license: _license, ...broken } = original;
      await stored.replace(broken as ManifestItem);
      try {
        const data = await dashboard('?fresh=true');
        for (const checkId of ['required-fields', 'schema-valid']) {
          const result = check(data, checkId);
          expect(result.ok, checkId).toBe(false);
          expect(result.failureCount).toBe(1);
          expect(result.failures[0]).toMatchObject({
            itemId: id,
            uid: 'api::article.article',
            locale: 'en',
            title: original.title,
          });
          expect(result.failures[0]!.editPath).toMatch(
            /^\/content-manager\/collection-types\/api::article\.article\/[a-z0-9]+\?plugins\[i18n\]\[locale\]=en$/,
          );
        }
        expect(check(data, 'required-fields').failures[0]!.detail).toBe('missing license');
        expect(check(data, 'schema-valid').failures[0]!.detail).toContain('license');
      } finally {
        await stored.replace(original);
      }
      expect(check(await dashboard('?fresh=true'), 'schema-valid').ok).toBe(true);
    });

    it('fails delta-and-paging when the feeds disagree with the snapshot they answer for', async () => {
      const snapshot = await app.strapi.plugin('sitemap-ai').service('manifest').current();
      const rows = app.strapi.db.query('plugin::sitemap-ai.snapshot');
      const stored = (await rows.findOne({ where: { seq: snapshot.seq } })) as {
        id: number;
        item_count: number;
        changes: unknown;
      };
      // The snapshot claims one item and one change more than its pages and its delta hold.
      await rows.update({
        where: { id: stored.id },
        data: {
          item_count: snapshot.itemCount + 1,
          changes: { ...snapshot.changes, changed: snapshot.changes.changed + 1 },
        },
      });
      try {
        const result = check(await dashboard('?fresh=true'), 'delta-and-paging');
        expect(result.ok).toBe(false);
        expect(result.problems).toEqual([
          `paging gave ${snapshot.itemCount} items, the snapshot holds ${snapshot.itemCount + 1}`,
          `the delta since ${snapshot.seq - 1} lists ${snapshot.changes.added + snapshot.changes.changed} items and ${snapshot.changes.removed} tombstones; snapshot ${snapshot.seq} changed ${snapshot.changes.added + snapshot.changes.changed + 1} and removed ${snapshot.changes.removed}`,
        ]);
        expect(result.summary).toContain(`paging gave ${snapshot.itemCount} items`);
      } finally {
        await rows.update({
          where: { id: stored.id },
          data: { item_count: stored.item_count, changes: snapshot.changes },
        });
      }
      expect(check(await dashboard('?fresh=true'), 'delta-and-paging').ok).toBe(true);
    });

    describe('the CLI validator', () => {
      let base: string;

      beforeAll(async () => {
        const server = app.strapi.server.httpServer;
        await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
        base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      });

      it('Given the booted playground, When it is validated, Then it exits 0 with a readable report', async () => {
        const result = await runCli([base]);
        expect(result.code, result.stdout + result.stderr).toBe(0);
        expect(result.stdout).toContain(`${base}/api/sitemap-ai`);
        for (const id of [
          'schema-valid',
          'paging',
          'required-fields',
          'permalinks',
          'checksums',
          'delta',
        ]) {
          expect(result.stdout).toMatch(new RegExp(`PASS\\s+${id}\\s`));
        }
        // Evidence coverage of the seed is below 90 %: a warning, not a failure (use --strict to fail on it).
        expect(result.stdout).toMatch(/WARN\s+evidence\s/);
        expect(result.stdout).toMatch(/^OK: /m);

        const strict = await runCli([base, '--strict', '--json']);
        expect(strict.code).toBe(1);
        expect(
          JSON.parse(strict.stdout).checks.find((c: { id: string }) => c.id === 'evidence'),
        ).toMatchObject({ ok: false, level: 'error' });
      });

      it('Given the same snapshot, When the CLI and the server check it, Then every item check finds the same, in the same words', async () => {
        const server = (await app.strapi
          .plugin('sitemap-ai')
          .service('readiness')
          .check({ fresh: true })) as { snapshot: string; items: number; checks: ReadinessCheck[] };
        const result = await runCli([base, '--json']);
        const report = JSON.parse(result.stdout) as {
          snapshot: { id: string };
          items: number;
          checks: {
            id: string;
            ok: boolean;
            summary: string;
            problemCount: number;
            problems: { itemId?: string; message: string }[];
          }[];
        };
        expect(report.snapshot.id).toBe(server.snapshot);
        expect(report.items).toBe(server.items);
        const itemChecks: readonly string[] = ITEM_CHECK_IDS;
        const fromCli = report.checks
          .filter((c) => itemChecks.includes(c.id))
          .map((c) => ({
            id: c.id,
            ok: c.ok,
            summary: c.summary,
            count: c.problemCount,
            failures: c.problems.map((p) => [p.itemId, p.message]),
          }));
        const fromServer = server.checks
          .filter((c) => itemChecks.includes(c.id))
          .map((c) => ({
            id: c.id,
            ok: c.ok,
            summary: c.summary,
            count: c.failureCount,
            failures: c.failures.map((f) => [f.itemId, f.detail]),
          }));
        expect(fromCli.map((c) => c.id).sort()).toEqual([...itemChecks].sort());
        expect(fromCli.sort((a, b) => a.id.localeCompare(b.id))).toEqual(
          fromServer.sort((a, b) => a.id.localeCompare(b.id)),
        );
        // Not an agreement on nothing: the seed's evidence coverage fails on both sides, item by item.
        const evidence = fromServer.find((c) => c.id === 'evidence')!;
        expect(evidence.ok).toBe(false);
        expect(evidence.failures.length).toBeGreaterThan(0);
      });

      it('verifies every checksum with --all and answers --json', async () => {
        const result = await runCli([base, '--all', '--json']);
        expect(result.code, result.stderr).toBe(0);
        const report = JSON.parse(result.stdout) as {
          ok: boolean;
          items: number;
          checks: { id: string; ok: boolean; summary: string }[];
        };
        expect(report.ok).toBe(true);
        expect(report.items).toBeGreaterThan(100);
        const checksums = report.checks.find((c) => c.id === 'checksums')!;
        expect(checksums.summary).toBe(
          `${report.items} of ${report.items} items match their content`,
        );
      });

      it('exits 2 on bad usage and 1 when the site cannot be reached', async () => {
        expect((await runCli([])).code).toBe(2);
        expect((await runCli([base, '--sample', 'x'])).code).toBe(2);
        const unreachable = await runCli(['http://127.0.0.1:1', '--timeout', '2000']);
        expect(unreachable.code).toBe(1);
        expect(unreachable.stdout).toMatch(/FAIL\s+paging/);
      });

      describe('against a broken target', () => {
        let broken: Server;
        let brokenBase: string;
        let badId: string;

        beforeAll(async () => {
          // A tiny site serving a real page of the playground, with one checksum that does not match its content.
          const page = (await app.http.get(`${API}/manifest`).query({ limit: 1000 }).expect(200))
            .body as ManifestPage;
          const article = page.items.find((i) => i.id === 'article:geo-index:en')!;
          const fragments = page.items.filter((i) => i.parent === article.id).slice(0, 3);
          const items = [article, ...fragments];
          const contents = new Map<string, string>();
          for (const item of items)
            contents.set(item.id, (await app.http.get(pathOf(item.content_url)).expect(200)).text);
          badId = fragments[1]!.id;
          const served = items.map((i) =>
            i.id === badId ? { ...i, checksum: sha256('not the content') } : i,
          );
          broken = createServer((req, res) => {
            const url = new URL(req.url ?? '/', 'http://x');
            const json = (status: number, body: unknown) => {
              res.writeHead(status, { 'Content-Type': 'application/json' });
              res.end(JSON.stringify(body));
            };
            if (url.pathname === `${API}/schema.json`) return json(200, MANIFEST_SCHEMA);
            if (url.pathname === `${API}/manifest`)
              return json(200, { ...page, items: served, next_page_token: null });
            if (url.pathname === `${API}/delta`) {
              return json(200, {
                spec: page.spec,
                since: url.searchParams.get('since'),
                snapshot: page.snapshot,
                items: [],
                removed: [],
                next_page_token: null,
                next_since: page.snapshot.id,
              });
            }
            const content = /^\/api\/sitemap-ai\/fragments\/([^/]+)\/content$/.exec(url.pathname);
            if (content && contents.has(content[1]!)) {
              res.writeHead(200, { 'Content-Type': 'text/markdown; charset=utf-8' });
              return res.end(contents.get(content[1]!));
            }
            return json(404, {
              data: null,
              error: { status: 404, name: 'NotFoundError', message: 'no such route' },
            });
          });
          await new Promise<void>((resolve) => broken.listen(0, '127.0.0.1', resolve));
          brokenBase = `http://127.0.0.1:${(broken.address() as AddressInfo).port}`;
        });

        afterAll(async () => {
          await new Promise((resolve) => broken?.close(resolve));
        });

        it('exits 1 and names the item whose checksum does not match its content', async () => {
          const result = await runCli([brokenBase, '--all']);
          expect(result.code, result.stdout + result.stderr).toBe(1);
          expect(result.stdout).toMatch(/FAIL\s+checksums\s+3 of 4 items match their content/);
          expect(result.stdout).toContain(
            `${badId}: the manifest says ${sha256('not the content')}, its content hashes to sha256:`,
          );
          expect(result.stdout).toMatch(/^FAILED: /m);

          const json = JSON.parse((await runCli([brokenBase, '--all', '--json'])).stdout) as {
            ok: boolean;
            checks: { id: string; ok: boolean; problems: { itemId?: string; message: string }[] }[];
          };
          expect(json.ok).toBe(false);
          const failed = json.checks.filter((c) => !c.ok).map((c) => c.id);
          expect(failed).toContain('checksums');
          expect(failed).not.toContain('schema-valid');
          expect(
            json.checks.find((c) => c.id === 'checksums')!.problems.map((p) => p.itemId),
          ).toEqual([badId]);
        });
      });
    });
  },
);
