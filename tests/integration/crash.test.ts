import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ManifestItem } from '../../shared/contracts/manifest';
import { API, crawl, sha256 } from '../helpers/manifest';
import { bootPlayground, testDatabases, type TestApp } from '../helpers/strapi';

/**
 * kill -9 during a full rebuild under a policy change (issue 9, fault suite "Crash" and "Crash
 * during a policy change"): a Strapi process allows train in config/plugins and is killed at
 * several moments of the re-compare that follows; the site owner restarts with train denied
 * again. The previous snapshot is served after the restart, the build lease is free within its
 * expiry, the next build completes, nothing published before is missing, every item has the
 * licence and usage the restored config gives, and checksums verify.
 */
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function startInstance(env: Record<string, string>) {
  const child = spawn(
    process.execPath,
    [path.join(__dirname, '..', 'helpers', 'crash-instance.cjs')],
    {
      env: {
        ...process.env,
        ...env,
        LOG_LEVEL: 'error',
        NODE_ENV: 'test',
        SITEMAP_AI_SCHEDULE: 'false',
        SITEMAP_AI_RATE_LIMIT_MAX: '1000000',
      },
    },
  ) as ChildProcessWithoutNullStreams;
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const line = async (pattern: RegExp, timeoutMs = 240_000) => {
    const deadline = Date.now() + timeoutMs;
    while (!output.split('\n').some((l) => pattern.test(l.trim()))) {
      if (child.exitCode !== null) throw new Error(`the instance exited: ${output}`);
      if (Date.now() > deadline)
        throw new Error(`no line ${pattern} within ${timeoutMs} ms: ${output}`);
      await sleep(50);
    }
  };
  const send = (command: string) => child.stdin.write(`${command}\n`);
  const kill = async () => {
    if (child.exitCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  };
  return {
    line,
    send,
    kill,
    output: () => output,
    exited: () => child.exitCode !== null || child.signalCode !== null,
  };
}

/** A killed instance's presence lasts three minutes: in these tests it is known dead at once. */
async function forgetDeadInstances(app: TestApp): Promise<void> {
  await app.strapi.db
    .query('plugin::sitemap-ai.lock')
    .deleteMany({ where: { name: { $startsWith: 'instance:' } } });
}

describe.runIf(testDatabases().includes('sqlite'))(
  'kill -9 during a full rebuild on sqlite',
  () => {
    let database: TestApp['database'];
    let baseline: Map<string, ManifestItem>;
    /** How long the full build of the site took: the kills land at fractions of it. */
    let buildMs = 0;
    const survived: string[] = [];

    beforeAll(async () => {
      // A site of the seed content and 120 more articles, built and published under train: deny.
      const first = await bootPlayground('sqlite');
      database = first.database;
      await first.close({ keepDatabase: true });
      const seeder = startInstance(database.env);
      await seeder.line(/^ready$/);
      seeder.send('seed 120');
      await seeder.line(/^seeded$/);
      seeder.send('rebuild');
      await seeder.line(/^built \d+ skipped=false in \d+ ms$/);
      buildMs = Number(/in (\d+) ms/.exec(seeder.output())![1]);
      await seeder.kill();
      const app = await bootPlayground('sqlite', { database });
      await forgetDeadInstances(app);
      baseline = new Map((await crawl(app.http)).items.map((i) => [i.id, i]));
      await app.close({ keepDatabase: true });
      expect(baseline.size).toBeGreaterThan(1000);
    });

    afterAll(async () => {
      console.log(`[crash] ${survived.length} kills survived: ${survived.join('; ')}`);
      await database?.drop();
    });

    it.each([0.1, 0.4, 0.7])(
      'killed at %f of a full build into the re-compare that allows train, restarted with train denied again',
      async (fraction) => {
        const delay = Math.max(20, Math.round(buildMs * fraction));
        // When an instance allows train in config/plugins and is killed during the re-compare
        const instance = startInstance({ ...database.env, SITEMAP_AI_TRAIN: 'allow' });
        await instance.line(/^ready$/);
        instance.send('rebuild');
        await instance.line(/^building$/);
        await sleep(delay);
        const finished = /^built /m.test(instance.output());
        await instance.kill();

        // Then after a restart with train denied, the published snapshot is served at once …
        const app = await bootPlayground('sqlite', { database, env: { SITEMAP_AI_TRAIN: 'deny' } });
        try {
          await forgetDeadInstances(app);
          await app.http.get(`${API}/manifest`).query({ limit: 1 }).expect(200);
          // … the build lease is free within its expiry, and the next build completes …
          const builder = app.strapi.plugin('sitemap-ai').service('snapshot-builder');
          const started = Date.now();
          let result = await builder.rebuild({ trigger: 'test' });
          while (result.locked && Date.now() - started < 40_000) {
            await sleep(1_000);
            result = await builder.rebuild({ trigger: 'test' });
          }
          const waited = Date.now() - started;
          expect(result.locked).toBe(false);
          expect(result.failures).toEqual([]);

          // … nothing published before is missing, and every licence and usage is what the
          // restored config gives (the same as before the change).
          const items = new Map((await crawl(app.http)).items.map((i) => [i.id, i]));
          expect([...baseline.keys()].filter((id) => !items.has(id))).toEqual([]);
          for (const [id, before] of baseline) {
            const now = items.get(id)!;
            expect(now.usage, id).toEqual(before.usage);
            expect(now.license, id).toBe(before.license);
            expect(now.checksum, id).toBe(before.checksum);
          }
          // The readiness checklist's policy check agrees over the whole snapshot.
          const report = (await app.strapi
            .plugin('sitemap-ai')
            .service('readiness')
            .check({ fresh: true })) as { checks: { id: string; ok: boolean; summary: string }[] };
          const policy = report.checks.find((c) => c.id === 'policy')!;
          expect(policy.ok, policy.summary).toBe(true);
          // Checksums verify against the served content (a sample of every 25th item).
          for (const item of [...items.values()].filter((_, i) => i % 25 === 0)) {
            const content = await app.http.get(`${API}/fragments/${item.id}/content`).expect(200);
            expect(sha256(content.text), item.id).toBe(item.checksum);
          }
          survived.push(
            `${delay} ms of a ${buildMs} ms build (${finished ? 'build had finished' : 'mid-build'}, lease free after ${(waited / 1000).toFixed(1)} s)`,
          );
        } finally {
          await app.close({ keepDatabase: true });
        }
      },
    );
  },
);

describe.runIf(testDatabases().includes('sqlite'))(
  'kill -9 right after a publish returns, on sqlite',
  () => {
    let database: TestApp['database'] | undefined;

    afterAll(async () => {
      await database?.drop();
    });

    it('records the publish at the next rebuild: its mark was written before the publish returned', async () => {
      const first = await bootPlayground('sqlite');
      database = first.database;
      const before = new Map((await crawl(first.http)).items.map((i) => [i.id, i.checksum]));
      await first.close({ keepDatabase: true });

      // An editor's publish returns and the process dies before its queued tracking could run.
      const text = 'A paragraph published just before the server died.';
      const instance = startInstance(database.env);
      await instance.line(/^ready$/);
      instance.send(`publish-and-die geo-index ${text}`);
      const deadline = Date.now() + 120_000;
      while (!instance.exited() && Date.now() < deadline) await sleep(50);
      expect(instance.exited()).toBe(true);

      const app = await bootPlayground('sqlite', { database });
      try {
        await forgetDeadInstances(app);
        const marks = await app.strapi.db.query('plugin::sitemap-ai.dirty-mark').findMany();
        expect(marks).toEqual([
          expect.objectContaining({ action: 'publish', attempts: 0, last_error: null }),
        ]);
        const result = await app.strapi
          .plugin('sitemap-ai')
          .service('snapshot-builder')
          .rebuild({ trigger: 'test' });
        expect(result.failures).toEqual([]);
        expect(await app.strapi.db.query('plugin::sitemap-ai.dirty-mark').count()).toBe(0);
        const changed = (await crawl(app.http)).items.filter(
          (i) => before.get(i.id) !== i.checksum,
        );
        expect(changed.length).toBeGreaterThan(0);
        const contents = await Promise.all(
          changed.map(
            async (i) => (await app.http.get(`${API}/fragments/${i.id}/content`).expect(200)).text,
          ),
        );
        expect(contents.some((c) => c.includes(text))).toBe(true);
      } finally {
        await app.close({ keepDatabase: true });
      }
    });
  },
);
