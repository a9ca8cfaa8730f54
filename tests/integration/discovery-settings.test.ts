import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type {
  DiscoveryPreview,
  DiscoverySettings,
  EditableSettings,
  SettingsData,
  SettingsFieldError,
} from '../../shared/contracts/admin';
import { roleToken, superAdminToken } from '../helpers/admin';
import { API } from '../helpers/manifest';
import { bootPlayground, testDatabases, type TestApp } from '../helpers/strapi';

/*
 * The Discovery section of Settings (docs/protocol.md §8): the llms.txt title and summary, the
 * AI crawlers robots.txt names and root serving, saved on top of the file config
 * (playground/config/plugins.js sets a summary and serveAtRoot) and previewed unsaved.
 */

const clone = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

/** The `User-agent:` lines of a robots.txt. */
const userAgents = (robots: string): string[] =>
  robots
    .split('\n')
    .filter((line) => line.startsWith('User-agent: '))
    .map((line) => line.slice('User-agent: '.length));

const TITLE = 'Example Research Library';
const SUMMARY = 'Peer-reviewed articles, guides and open datasets, each with its licence.';

describe.each(testDatabases())('Discovery settings on %s', (client) => {
  let app: TestApp;
  let owner: string;
  let editor: string;

  const auth = (token: string) => ({ Authorization: `Bearer ${token}` });
  const read = async (): Promise<SettingsData> =>
    (await app.http.get('/sitemap-ai/settings').set(auth(owner)).expect(200)).body
      .data as SettingsData;
  const save = (settings: unknown) =>
    app.http
      .put('/sitemap-ai/settings')
      .set(auth(owner))
      .send(settings as object);
  const preview = (body: unknown, token = owner) =>
    app.http
      .post('/sitemap-ai/discovery/preview')
      .set(auth(token))
      .send(body as object);
  const configService = () => app.strapi.plugin('sitemap-ai').service('config');
  const document = async (path: string): Promise<string> =>
    (await app.http.get(path).expect(200)).text;
  /** Save the file config's Discovery values again, so each test starts from them. */
  const restore = async (data: SettingsData, discovery: DiscoverySettings) =>
    save({ ...clone(data.settings), discovery }).expect(200);

  let fileDiscovery: DiscoverySettings;

  beforeAll(async () => {
    app = await bootPlayground(client);
    owner = await superAdminToken(app);
    editor = await roleToken(app, 'strapi-editor', 'editor@example.com');
    fileDiscovery = clone((await read()).settings.discovery);
  });

  afterAll(async () => {
    await app?.close();
  });

  it('answers the file config’s discovery values and the crawlers the robots.txt block may name', async () => {
    const data = await read();
    expect(data.settings.discovery).toEqual({
      title: '',
      summary: 'Articles, guides and datasets of the sitemap-ai playground.',
      agents: null,
      serveAtRoot: true,
    });
    const tokens = data.crawlers.map((c) => c.token);
    expect(tokens).toEqual(expect.arrayContaining(['GPTBot', 'ClaudeBot', 'PerplexityBot']));
    expect(new Set(tokens).size).toBe(tokens.length);
    expect(data.crawlers.find((c) => c.token === 'GPTBot')).toEqual({
      token: 'GPTBot',
      operator: 'OpenAI',
      role: 'training',
    });
    expect(data.crawlers.find((c) => c.token === 'ChatGPT-User')?.role).toBe('assistant');
    // With every crawler (null), robots.txt names each of them.
    expect(userAgents(await document(`${API}/robots.txt`))).toEqual([...tokens, '*']);
  });

  it('saves title, summary and crawlers: llms.txt and robots.txt follow at once, without a re-compare of the site', async () => {
    const builder = app.strapi.plugin('sitemap-ai').service('snapshot-builder');
    // Settled first: the current values saved and built (a first save spells out the file's
    // defaults, e.g. each type's granularity, which re-compares once whatever was changed).
    await save((await read()).settings).expect(200);
    await builder.rebuild({ trigger: 'test' });
    const before = await read();
    const fingerprint = configService().policyFingerprint() as string;
    const settings = clone(before.settings);
    settings.discovery = {
      title: TITLE,
      summary: SUMMARY,
      agents: ['GPTBot', 'PerplexityBot'],
      serveAtRoot: true,
    };
    const saved = await save(settings).expect(200);
    expect((saved.body.data as SettingsData).settings.discovery).toEqual(settings.discovery);
    expect((await read()).settings.discovery).toEqual(settings.discovery);

    const llms = await document(`${API}/llms.txt`);
    expect(llms.startsWith(`# ${TITLE}\n\n> ${SUMMARY}\n`)).toBe(true);
    expect(llms).not.toContain('of the sitemap-ai playground');
    expect((await document(`${API}/llms-full.txt`)).startsWith(`# ${TITLE}\n`)).toBe(true);
    const robots = await document(`${API}/robots.txt`);
    expect(userAgents(robots)).toEqual(['GPTBot', 'PerplexityBot', '*']);
    expect(robots).not.toContain('ClaudeBot');
    // The root documents (serveAtRoot) answer the same.
    expect(userAgents(await document('/robots.txt'))).toEqual(['GPTBot', 'PerplexityBot', '*']);

    // No item changes: the policy fingerprint stays, and the next rebuild re-compares nothing.
    expect(configService().policyFingerprint()).toBe(fingerprint);
    const tracker = app.strapi.plugin('sitemap-ai').service('tracker');
    const reconcileAll = vi.spyOn(tracker, 'reconcileAll');
    try {
      const result = await builder.rebuild({ trigger: 'test' });
      expect(result.skipped).toBe(true);
      expect(reconcileAll).not.toHaveBeenCalled();
      // The spy does see a change that does shape the items (a usage default).
      const changed = clone(settings);
      changed.defaults.usage.cache = changed.defaults.usage.cache === 'deny' ? 'allow' : 'deny';
      await save(changed).expect(200);
      expect(configService().policyFingerprint()).not.toBe(fingerprint);
      await builder.rebuild({ trigger: 'test' });
      expect(reconcileAll).toHaveBeenCalledTimes(1);
      await save(before.settings).expect(200);
      await builder.rebuild({ trigger: 'test' });
    } finally {
      reconcileAll.mockRestore();
    }
    await restore(await read(), fileDiscovery);
  });

  it('empties the title and chooses every crawler again: the documents use their defaults', async () => {
    const settings = clone((await read()).settings);
    settings.discovery = { title: TITLE, summary: '', agents: [], serveAtRoot: true };
    await save(settings).expect(200);
    // No crawler named: only the group for every agent is left.
    expect(userAgents(await document(`${API}/robots.txt`))).toEqual(['*']);
    // An empty summary unsets the file's one: llms.txt says its generated line.
    const llms = await document(`${API}/llms.txt`);
    expect(llms).not.toContain('of the sitemap-ai playground');
    expect(llms).toMatch(/^# Example Research Library\n\n> Pages of .+ as clean Markdown/);

    settings.discovery = { ...settings.discovery, title: '', agents: null };
    await save(settings).expect(200);
    const crawlers = (await read()).crawlers.map((c) => c.token);
    expect(userAgents(await document(`${API}/robots.txt`))).toEqual([...crawlers, '*']);
    expect(await document(`${API}/llms.txt`)).not.toContain(TITLE);
    await restore(await read(), fileDiscovery);
  });

  it('turns root serving off and on again without a restart', async () => {
    const settings = clone((await read()).settings);
    expect((await app.http.get('/llms.txt')).status).toBe(200);
    settings.discovery.serveAtRoot = false;
    await save(settings).expect(200);
    expect((await app.http.get('/llms.txt')).status).toBe(404);
    expect((await app.http.get('/robots.txt')).status).toBe(404);
    // The documents under the plugin's prefix stay.
    await app.http.get(`${API}/llms.txt`).expect(200);
    settings.discovery.serveAtRoot = true;
    await save(settings).expect(200);
    expect((await app.http.get('/llms.txt')).status).toBe(200);
  });

  it('refuses bad discovery values with a 400 naming each field, and stores nothing', async () => {
    const before = await read();
    const robotsBefore = await document(`${API}/robots.txt`);
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- deliberately ill-typed values
    const settings = clone(before.settings) as unknown as Record<string, any>;
    settings.discovery = {
      title: 'T'.repeat(201),
      summary: 42,
      agents: ['GPTBot', 'GPTBot\nUser-agent: *\nDisallow: /'],
      serveAtRoot: 'yes',
      details: 'Not editable in Settings',
    };
    const res = await save(settings).expect(400);
    const errors = res.body.error.details.errors as SettingsFieldError[];
    for (const [path, name] of [
      [['discovery', 'title'], 'discovery.title'],
      [['discovery', 'summary'], 'discovery.summary'],
      [['discovery', 'agents', '1'], 'discovery.agents[1]'],
      [['discovery', 'serveAtRoot'], 'discovery.serveAtRoot'],
      [['discovery', 'details'], 'discovery.details'],
    ] as const) {
      const error = errors.find((e) => JSON.stringify(e.path) === JSON.stringify(path));
      expect(error, name).toBeDefined();
      expect(error!.message.startsWith(`${name}: `), error!.message).toBe(true);
    }

    // A well-formed token the plugin does not know is refused by the server, at its field.
    const unknown = clone(before.settings);
    unknown.discovery.agents = ['GPTBot', 'MadeUpBot'];
    const refused = await save(unknown).expect(400);
    expect(refused.body.error.details.errors).toEqual([
      {
        path: ['discovery', 'agents', '1'],
        message: expect.stringMatching(/^discovery\.agents\[1\]: must be one of GPTBot, /),
        name: 'ValidationError',
      },
    ]);

    // The section is required in a whole Settings body.
    const { discovery: _discovery, ...withoutSection } = clone(before.settings);
    const missing = await save(withoutSection).expect(400);
    expect(
      (missing.body.error.details.errors as SettingsFieldError[]).map((e) => e.message),
    ).toEqual(['discovery: is required']);

    const after = await read();
    expect(after.updatedAt).toBe(before.updatedAt);
    expect(after.settings).toEqual(before.settings);
    expect(await document(`${API}/robots.txt`)).toBe(robotsBefore);
  });

  it('previews robots.txt, llms.txt, rsl.xml and tdmrep.json with unsaved values, and stores nothing', async () => {
    const before = await read();
    const body: DiscoverySettings = {
      title: 'Preview title',
      summary: 'Preview summary.',
      agents: ['ClaudeBot', 'Claude-User'],
      serveAtRoot: false,
    };
    const res = await preview(body).expect(200);
    const data = res.body.data as DiscoveryPreview;
    expect(data.llms.startsWith('# Preview title\n\n> Preview summary.\n')).toBe(true);
    expect(userAgents(data.robots)).toEqual(['ClaudeBot', 'Claude-User', '*']);
    // Without root serving, robots.txt no longer disallows the root copy of llms-full.txt.
    expect(data.robots).not.toMatch(/^Disallow: \/llms-full\.txt$/m);
    const atRoot = (await preview({ ...body, serveAtRoot: true }).expect(200)).body
      .data as DiscoveryPreview;
    expect(atRoot.robots).toMatch(/^Disallow: \/llms-full\.txt$/m);
    // The preview is what the public document would say with these values saved.
    const saved = clone(before.settings);
    saved.discovery = body;
    await save(saved).expect(200);
    expect(await document(`${API}/robots.txt`)).toBe(data.robots);
    expect(await document(`${API}/llms.txt`)).toBe(data.llms);
    expect(await document(`${API}/rsl.xml`)).toBe(data.rsl);
    expect(JSON.parse(await document(`${API}/tdmrep.json`))).toEqual(JSON.parse(data.tdmrep));
    await restore(await read(), fileDiscovery);

    // Previewing changes nothing that is stored or served.
    const stored = await read();
    await preview(body).expect(200);
    expect((await read()).updatedAt).toBe(stored.updatedAt);
    expect(await document(`${API}/llms.txt`)).not.toContain('Preview title');
  });

  it('refuses a bad preview body with a 400 naming each field', async () => {
    const res = await preview({
      title: 'ok',
      summary: 'ok',
      agents: ['NotARealBot'],
      serveAtRoot: true,
    }).expect(400);
    expect(res.body.error.details.errors.map((e: SettingsFieldError) => e.path)).toEqual([
      ['discovery', 'agents', '0'],
    ]);
    const bad = await preview({ title: 3, agents: 'GPTBot', serveAtRoot: true }).expect(400);
    expect(
      (bad.body.error.details.errors as SettingsFieldError[]).map((e) => e.message).sort(),
    ).toEqual([
      'discovery.agents: must be a list of crawler tokens, or null for every known crawler',
      'discovery.summary: is required',
      'discovery.title: must be text',
    ]);
    expect((await preview([1, 2])).status).toBe(400);
  });

  it('refuses the preview to an Editor (403) and without an admin token (401)', async () => {
    const body = clone(fileDiscovery);
    expect((await preview(body, editor)).status).toBe(403);
    expect((await app.http.post('/sitemap-ai/discovery/preview').send(body)).status).toBe(401);
  });

  it('keeps Settings saved before the Discovery section existed, with the section from the file', async () => {
    const data = await read();
    const { discovery: _discovery, ...old } = clone(data.settings);
    old.rateLimit = { ...old.rateLimit, max: 777_777 };
    await app.strapi.store({ type: 'plugin', name: 'sitemap-ai' }).set({
      key: 'settings',
      value: { settings: old, updatedAt: new Date().toISOString(), updatedBy: null },
    });
    const after = await read();
    expect(after.updatedAt).not.toBe(data.updatedAt);
    expect(after.settings.rateLimit.max).toBe(777_777);
    expect(configService().config().rateLimit.max).toBe(777_777);
    expect(after.settings.discovery).toEqual(fileDiscovery);
    await save(data.settings).expect(200);
  });

  it('lists the public discovery documents on the dashboard, each answering', async () => {
    const data = (await app.http.get('/sitemap-ai/dashboard').set(auth(owner)).expect(200)).body
      .data as { documents: { name: string; url: string }[] };
    expect(data.documents.map((d) => d.name)).toEqual([
      'llms.txt',
      'llms-full.txt',
      'robots.txt',
      'rsl.xml',
      'tdmrep.json',
      'sitemap.xml',
      'policy.json',
    ]);
    for (const { name, url } of data.documents) {
      const parsed = new URL(url);
      expect(parsed.pathname, name).toBe(`${API}/${name}`);
      await app.http.get(parsed.pathname).expect(200);
    }
  });
});

describe('the Discovery preview before the first snapshot', () => {
  let app: TestApp;
  let owner: string;

  beforeAll(async () => {
    app = await bootPlayground(testDatabases()[0] ?? 'sqlite');
    owner = await superAdminToken(app);
    // The playground builds a snapshot when it seeds: take the site back to before its first one.
    await app.strapi.db.query('plugin::sitemap-ai.snapshot').deleteMany({});
  });

  afterAll(async () => {
    await app?.close();
  });

  it('answers 503 like the documents themselves, after validating the body', async () => {
    const discovery = (
      (
        await app.http
          .get('/sitemap-ai/settings')
          .set('Authorization', `Bearer ${owner}`)
          .expect(200)
      ).body.data as { settings: EditableSettings }
    ).settings.discovery;
    await app.http.get(`${API}/llms.txt`).expect(503);
    const res = await app.http
      .post('/sitemap-ai/discovery/preview')
      .set('Authorization', `Bearer ${owner}`)
      .send(discovery);
    expect(res.status).toBe(503);
    expect(res.headers['retry-after']).toBe('30');
    expect(res.body.error).toMatchObject({ status: 503, name: 'NoSnapshotError' });
    await app.http
      .post('/sitemap-ai/discovery/preview')
      .set('Authorization', `Bearer ${owner}`)
      .send({ ...discovery, serveAtRoot: 'no' })
      .expect(400);
  });
});
