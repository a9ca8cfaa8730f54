import { statSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  grantContentAction,
  grantLocales,
  grantPluginAction,
  roleToken,
  superAdminToken,
} from '../helpers/admin';
import { launchBrowser, login, screenshot, startAdminApp, type AdminApp } from '../helpers/browser';
import robotsParser from 'robots-parser';
import { API, crawl } from '../helpers/manifest';
import type { ManifestItem } from '../../shared/contracts/manifest';

const ARTICLE = 'api::article.article';
const SLUG = 'measuring-ai-crawler-ingest';
const PAGE_ID = `article:${SLUG}:en`;
const DRIFT = `${PAGE_ID}:drift`;
const CC_BY = 'https://creativecommons.org/licenses/by/4.0/';
const EVIDENCE_URL = 'https://doi.org/10.5281/zenodo.7654321';
const REASON = 'Open the ingest study for training, with its dataset as a source';

describe('editors and site owners in the admin (Chromium)', () => {
  let server: AdminApp;
  let browser: Browser;
  let ownerToken: string;
  let editorToken: string;
  let documentId: string;

  const publicItem = async (id: string): Promise<ManifestItem> =>
    (await server.app.http.get(`${API}/fragments/${id}`).expect(200)).body.item as ManifestItem;
  const rebuild = async () =>
    server.app.http
      .post('/sitemap-ai/rebuild')
      .set('Authorization', `Bearer ${ownerToken}`)
      .send({})
      .expect(200);
  const editView = (locale = 'en') =>
    `${server.baseUrl}/admin/content-manager/collection-types/${ARTICLE}/${documentId}?plugins[i18n][locale]=${locale}`;

  /** An item's Content-Usage header, and whether robots.txt lets GPTBot fetch its page. */
  async function policySignals(
    id: string,
  ): Promise<{ header: string; gptbot: boolean; expected: boolean }> {
    const res = await server.app.http.get(`${API}/fragments/${id}`).expect(200);
    const item = res.body.item as ManifestItem;
    const { items } = await crawl(server.app.http);
    const parts = items.filter((i) => i.id === item.id || i.parent === item.id);
    const robots = robotsParser(
      'https://example.com/robots.txt',
      (await server.app.http.get(`${API}/robots.txt`).expect(200)).text,
    );
    return {
      header: String(res.headers['content-usage']),
      gptbot: Boolean(robots.isAllowed(item.url, 'GPTBot')),
      expected: parts.every((p) => p.usage.train !== 'deny'),
    };
  }

  async function choose(page: Page, name: string, option: string): Promise<void> {
    await page.locator(`[name="${name}"]`).click();
    await page.getByRole('option', { name: option, exact: true }).click();
  }

  async function openEditView(page: Page): Promise<void> {
    await page.goto(editView());
    await page.locator('[name="sitemapAi.license"]').waitFor({ timeout: 60_000 });
  }

  async function saveEntry(page: Page): Promise<void> {
    await page.getByRole('button', { name: 'Save', exact: true }).first().click();
    await page.getByText(/saved/i).first().waitFor({ timeout: 30_000 });
  }

  beforeAll(async () => {
    server = await startAdminApp();
    ownerToken = await superAdminToken(server.app, 'owner@example.com');
    // The site owner lets Editors edit the AI fields of articles in both languages.
    await grantLocales(server.app, 'strapi-editor', ARTICLE, ['en', 'sk']);
    await grantContentAction(server.app, 'strapi-editor', 'publish', ARTICLE, ['en', 'sk']);
    await grantPluginAction(server.app, 'strapi-editor', 'fields.edit');
    editorToken = await roleToken(server.app, 'strapi-editor', 'editor@example.com');
    const doc = (await server.app.strapi.documents(ARTICLE as never).findFirst({
      filters: { slug: SLUG },
      locale: 'en',
      status: 'draft',
    } as never)) as unknown as { documentId: string };
    documentId = doc.documentId;
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    await server?.app.close();
  });

  it('an editor sets licence, usage, evidence and a fragment override, publishes with a reason, and the manifest shows exactly that', async () => {
    const page = await browser.newPage({ viewport: { width: 1440, height: 1000 } });
    await login(page, server.baseUrl, 'editor@example.com');
    await openEditView(page);

    await choose(page, 'sitemapAi.license', 'CC BY 4.0');
    await choose(page, 'sitemapAi.usage.train', 'Allow');
    const rows = await page.locator('input[name^="sitemapAi.evidence."][name$=".url"]').count();
    await page.locator('button[name="sitemapAi.evidence.add"]').click();
    await page.locator(`input[name="sitemapAi.evidence.${rows}.rel"]`).fill('dataset');
    await page.locator(`input[name="sitemapAi.evidence.${rows}.url"]`).fill(EVIDENCE_URL);
    await page.getByRole('button', { name: /^Drift \(/ }).click();
    await choose(page, `sitemapAi.fragments.${DRIFT}.usage.train`, 'Deny');
    await page.locator('textarea[name="sitemapAi.reason"]').fill(REASON);
    await screenshot(page, 'edit-view-panel');

    await saveEntry(page);
    await page.getByRole('button', { name: 'Publish', exact: true }).first().click();
    await page
      .getByText(/published/i)
      .first()
      .waitFor({ timeout: 30_000 });
    await rebuild();

    const article = await publicItem(PAGE_ID);
    expect(article.license).toBe(CC_BY);
    expect(article.usage.train).toBe('allow');
    expect(article.evidence).toContainEqual({ rel: 'dataset', url: EVIDENCE_URL });
    expect(article.changelog![0]!.desc).toBe(REASON);
    const drift = await publicItem(DRIFT);
    expect(drift.usage.train).toBe('deny');
    expect(drift.license).toBe(CC_BY);
    const other = await publicItem(`${PAGE_ID}:time-to-index`);
    expect(other.usage.train).toBe('allow');
    const log = (await server.app.http.get(`${API}/fragments/${DRIFT}/changelog`).expect(200)).body;
    expect(log.entries[0].desc).toBe(REASON);
    await page.close();
  });

  it('a value saved only in the draft does not appear in the public manifest', async () => {
    const page = await browser.newPage({ viewport: { width: 1440, height: 1000 } });
    await login(page, server.baseUrl, 'editor@example.com');
    await openEditView(page);
    await choose(page, 'sitemapAi.usage.train', 'Deny');
    await saveEntry(page);
    await rebuild();
    const draft = (await server.app.strapi
      .documents(ARTICLE as never)
      .findOne({ documentId, locale: 'en', status: 'draft' } as never)) as unknown as {
      sitemapAi: { usage: { train: string } };
    };
    expect(draft.sitemapAi.usage.train).toBe('deny');
    expect((await publicItem(PAGE_ID)).usage.train).toBe('allow');
    await page.close();
  });

  it('a site owner allows train in Settings, rebuilds from the Dashboard, and the manifest follows', async () => {
    const before = await publicItem('page:about:en');
    expect(before.usage.train).toBe('deny');
    const signals = await policySignals('page:about:en');
    expect(signals).toEqual({ header: 'train-ai=n, search=y', gptbot: false, expected: false });
    const page = await browser.newPage({ viewport: { width: 1440, height: 1200 } });
    await login(page, server.baseUrl, 'owner@example.com');
    await page.goto(`${server.baseUrl}/admin/settings/sitemap-ai`);
    await page.locator('[name="defaults.usage.train"]').first().waitFor({ timeout: 60_000 });
    await choose(page, 'defaults.usage.train', 'Allow');
    await screenshot(page, 'settings');
    await page.locator('button[type=submit]').first().click();
    await page
      .getByText(/next rebuild/i)
      .first()
      .waitFor({ timeout: 30_000 });

    await page.goto(`${server.baseUrl}/admin/plugins/sitemap-ai`);
    await page.getByRole('button', { name: 'Rebuild now' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: /Snapshot #/ })
      .first()
      .waitFor({ timeout: 60_000 });
    await screenshot(page, 'dashboard');

    const after = await publicItem('page:about:en');
    expect(after.usage.train).toBe('allow');
    expect(after.changelog![0]!.desc).toMatch(
      /site settings changed: .*usage\.train: deny → allow/,
    );
    // The editor's explicit entry value still wins over the site default
    expect((await publicItem(DRIFT)).usage.train).toBe('deny');
    // And every vocabulary follows: the item's Content-Usage header, and robots.txt for GPTBot at
    // the page's path exactly as the strictest usage of the page and its fragments says.
    const followed = await policySignals('page:about:en');
    expect(followed.header).toBe('train-ai=y, search=y');
    expect(followed.gptbot).toBe(followed.expected);
    await page.close();
  });

  it('shows the GEO metrics as charts once agents fetch and an assistant sends a visitor', async () => {
    const gptbot = 'Mozilla/5.0 (compatible; GPTBot/1.2; +https://openai.com/gptbot)';
    const item = await publicItem(PAGE_ID);
    await server.app.http.get(`${API}/fragments/${PAGE_ID}`).set('User-Agent', gptbot).expect(200);
    await server.app.http
      .get(`${API}/beacon`)
      .query({ url: `${item.url}#drift`, ref: 'https://chatgpt.com/c/1' })
      .expect(204);
    await server.app.strapi.plugin('sitemap-ai').service('access-log').flush();
    const page = await browser.newPage({ viewport: { width: 1440, height: 2600 } });
    await login(page, server.baseUrl, 'owner@example.com');
    await page.goto(`${server.baseUrl}/admin/plugins/sitemap-ai`);
    const section = page.getByRole('heading', { name: 'GEO metrics' });
    await section.waitFor({ timeout: 60_000 });
    await page.getByRole('img', { name: /ChatGPT: 1/ }).waitFor({ timeout: 30_000 });
    await page
      .getByRole('img', { name: /GPTBot/ })
      .first()
      .waitFor({ timeout: 30_000 });
    expect(await page.getByRole('button', { name: 'Export CSV' }).count()).toBeGreaterThan(1);
    await section.scrollIntoViewIfNeeded();
    // The section card: the heading sits in the card's title group, inside its column.
    await screenshot(page, 'dashboard-geo', section.locator('xpath=../../..'));
    await page.close();
  });

  it('a site owner issues an API key for a partner’s agent, the agent uses it, and the owner revokes it', async () => {
    const page = await browser.newPage({ viewport: { width: 1440, height: 1400 } });
    await login(page, server.baseUrl, 'owner@example.com');
    await page.goto(`${server.baseUrl}/admin/plugins/sitemap-ai`);
    const heading = page.getByRole('heading', { name: 'Registered agents' });
    await heading.waitFor({ timeout: 60_000 });
    await page.locator('[name="agentKey.label"]').fill('Partner Bot');
    await page.locator('[name="agentKey.rateMax"]').fill('9');
    await page.getByRole('button', { name: 'Issue key' }).click();
    const shown = page.getByTestId('agent-key');
    await shown.waitFor({ timeout: 30_000 });
    const key = (await shown.textContent())!.trim();
    expect(key).toMatch(/^sai_/);
    const used = await server.app.http
      .get(`${API}/manifest`)
      .query({ limit: '1' })
      .set('X-Sitemap-AI-Key', key)
      .expect(200);
    expect(used.headers['ratelimit-limit']).toBe('9');
    await heading.scrollIntoViewIfNeeded();
    await screenshot(page, 'agent-keys', heading.locator('xpath=../../..'));

    await page.getByRole('button', { name: 'Revoke Partner Bot' }).click();
    await page.getByText('Revoked', { exact: true }).waitFor({ timeout: 30_000 });
    await server.app.http.get(`${API}/manifest`).set('X-Sitemap-AI-Key', key).expect(401);
    await page.close();
  });

  it('a site owner names fewer AI crawlers and retitles llms.txt, sees the preview follow, saves, and the public documents follow at once', async () => {
    const TITLE = 'Example Research Library';
    const SUMMARY = 'Peer-reviewed articles, guides and open datasets, each with its licence.';
    const started = Date.now();
    const page = await browser.newPage({ viewport: { width: 1440, height: 1200 } });
    await login(page, server.baseUrl, 'owner@example.com');
    await page.goto(`${server.baseUrl}/admin/settings/sitemap-ai`);
    const title = page.locator('input[name="discovery.title"]');
    await title.waitFor({ timeout: 60_000 });
    const robotsPreview = page.getByLabel('Preview of robots.txt', { exact: true });
    const llmsPreview = page.getByLabel('Preview of llms.txt', { exact: true });
    // The preview of the saved values: every known crawler is named.
    await robotsPreview.filter({ hasText: 'User-agent: ClaudeBot' }).waitFor({ timeout: 30_000 });

    await title.fill(TITLE);
    await page.locator('textarea[name="discovery.summary"]').fill(SUMMARY);
    await page.locator('[name="discovery.agents.all"]').click({ force: true });
    await page.getByRole('checkbox', { name: 'ClaudeBot (Anthropic)' }).click();
    await page.getByRole('checkbox', { name: 'PerplexityBot (Perplexity)' }).click();

    // The preview follows the unsaved values.
    await llmsPreview.filter({ hasText: `# ${TITLE}` }).waitFor({ timeout: 30_000 });
    await page.waitForFunction(
      () => {
        const text =
          document.querySelector('[aria-label="Preview of robots.txt"]')?.textContent ?? '';
        return (
          text.includes('User-agent: GPTBot\n') &&
          !text.includes('User-agent: ClaudeBot\n') &&
          !text.includes('User-agent: PerplexityBot\n')
        );
      },
      undefined,
      { timeout: 30_000 },
    );
    expect(await llmsPreview.textContent()).toContain(`> ${SUMMARY}`);
    // Nothing is public before the save.
    expect((await server.app.http.get(`${API}/llms.txt`).expect(200)).text).not.toContain(TITLE);
    await page.getByRole('heading', { name: 'Discovery documents' }).scrollIntoViewIfNeeded();
    const file = await screenshot(page, 'settings-discovery');
    expect(statSync(file).mtimeMs).toBeGreaterThanOrEqual(started);

    await page.locator('button[type=submit]').first().click();
    await page
      .getByText(/discovery documents at once/i)
      .first()
      .waitFor({ timeout: 30_000 });
    const llms = (await server.app.http.get(`${API}/llms.txt`).expect(200)).text;
    expect(llms.startsWith(`# ${TITLE}\n\n> ${SUMMARY}\n`)).toBe(true);
    const robots = (await server.app.http.get(`${API}/robots.txt`).expect(200)).text;
    expect(robots).toContain('User-agent: GPTBot\n');
    expect(robots).not.toContain('User-agent: ClaudeBot\n');
    expect(robots).not.toContain('User-agent: PerplexityBot\n');
    expect(robots).toBe(await robotsPreview.textContent());

    // The dashboard links every public document.
    await page.goto(`${server.baseUrl}/admin/plugins/sitemap-ai`);
    const names = [
      'llms.txt',
      'llms-full.txt',
      'robots.txt',
      'rsl.xml',
      'tdmrep.json',
      'sitemap.xml',
      'policy.json',
    ];
    for (const name of names) {
      const link = page.getByRole('link', { name: `Open ${name}`, exact: true });
      await link.waitFor({ timeout: 60_000 });
      const href = new URL((await link.getAttribute('href'))!);
      expect(href.pathname).toBe(`${API}/${name}`);
      await server.app.http.get(href.pathname).expect(200);
    }
    await page.getByRole('heading', { name: 'Discovery documents' }).scrollIntoViewIfNeeded();
    await screenshot(page, 'dashboard-discovery');
    await page.close();
  });

  it('an Editor cannot open Settings or rebuild: hidden in the UI and refused by the server', async () => {
    const page = await browser.newPage({ viewport: { width: 1440, height: 1000 } });
    await login(page, server.baseUrl, 'editor@example.com');
    // Wait until each page has rendered its answer before checking what is absent
    const denied = page.getByText("You don't have the permissions to access that content");
    await page.goto(`${server.baseUrl}/admin/settings/sitemap-ai`);
    await denied.waitFor({ timeout: 60_000 });
    expect(await page.locator('[name="defaults.usage.train"]').count()).toBe(0);
    await screenshot(page, 'editor-without-settings');
    await page.goto(`${server.baseUrl}/admin/plugins/sitemap-ai`);
    await denied.waitFor({ timeout: 60_000 });
    expect(await page.getByRole('button', { name: 'Rebuild now' }).count()).toBe(0);
    await page
      .getByRole('link', { name: /content manager/i })
      .first()
      .waitFor({ timeout: 60_000 });
    expect(await page.getByRole('link', { name: 'Sitemap AI' }).count()).toBe(0);

    const asEditor = (req: ReturnType<typeof server.app.http.get>) =>
      req.set('Authorization', `Bearer ${editorToken}`);
    expect((await asEditor(server.app.http.post('/sitemap-ai/rebuild')).send({})).status).toBe(403);
    expect((await asEditor(server.app.http.get('/sitemap-ai/settings'))).status).toBe(403);
    expect((await asEditor(server.app.http.put('/sitemap-ai/settings')).send({})).status).toBe(403);
    await page.close();
  });

  it('shows the panel in Slovak to an editor who prefers Slovak', async () => {
    const res = await server.app.http
      .put('/admin/users/me')
      .set('Authorization', `Bearer ${editorToken}`)
      .send({ preferedLanguage: 'sk' });
    expect(res.status).toBe(200);
    const page = await browser.newPage({ viewport: { width: 1440, height: 1000 } });
    await login(page, server.baseUrl, 'editor@example.com');
    await page.goto(editView());
    await page.getByText('Dôvod tejto zmeny').first().waitFor({ timeout: 60_000 });
    await screenshot(page, 'edit-view-panel-sk');
    await page.close();
  });
});
