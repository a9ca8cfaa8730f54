/**
 * The package as a site owner installs it: `npm pack` → a fresh Strapi 5.54 TypeScript app made
 * by create-strapi-app → `npm install <tarball>` → the README's install steps (config/plugins.ts,
 * Slovak in src/admin/app.tsx) → `strapi build` → boot → an article created and published through
 * the document service → "Rebuild now" → the manifest, the content, the public subpaths and the
 * admin's Settings page in Chromium. Nothing here loads the plugin from the repository.
 *
 * The fresh app (≈ 700 MB of node_modules) is kept between runs in a cache folder
 * (SITEMAP_AI_FRESH_APP_CACHE, default ~/.cache/strapi-plugin-sitemap-ai); each run resets the
 * files it writes and installs the new tarball into it, as `npm install` does in a user's app.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser } from '../helpers/browser';

const ROOT = path.resolve(__dirname, '..', '..');
const STRAPI_VERSION = '5.54.0';
/** Bump when the way the cached app is made changes, so stale caches are not reused. */
const CACHE_RECIPE = 2;
const CACHE =
  process.env.SITEMAP_AI_FRESH_APP_CACHE ??
  path.join(os.homedir(), '.cache', 'strapi-plugin-sitemap-ai');
const APP = path.join(CACHE, `fresh-app-${STRAPI_VERSION}-r${CACHE_RECIPE}`);
const ARTIFACTS = path.join(ROOT, 'tests', 'package', '.artifacts');
const ADMIN = { email: 'owner@example.com', password: 'Fresh-App-2026' };
const SITE_URL = 'https://www.example.com';
const LICENSE = 'https://www.example.com/license';

/** The child processes of this suite get no npm_* variables from the `npm test` around them. */
function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (!/^npm_/i.test(key) && key !== 'INIT_CWD' && key !== 'NODE_OPTIONS') env[key] = value;
  }
  return { ...env, CI: 'true', STRAPI_TELEMETRY_DISABLED: 'true', ...extra };
}

function run(command: string, args: string[], cwd: string, extra: Record<string, string> = {}) {
  const started = Date.now();
  const result = spawnSync(command, args, {
    cwd,
    env: cleanEnv(extra),
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  console.log(`[package] ${path.basename(command)} ${args.slice(0, 2).join(' ')} (${seconds} s)`);
  if (result.status !== 0) {
    throw new Error(
      `${command} ${args.join(' ')} failed (${result.status}):\n${result.stdout}\n${result.stderr}`,
    );
  }
  return result.stdout;
}

const npm = (args: string[], cwd: string) =>
  run('npm', [...args, '--no-audit', '--no-fund', '--loglevel=error'], cwd);

/** create-strapi-app (our devDependency, so no download of the CLI) → patched → npm install. */
function ensureFreshApp(): void {
  if (existsSync(path.join(APP, 'node_modules', '@strapi', 'strapi', 'package.json'))) return;
  rmSync(APP, { recursive: true, force: true });
  mkdirSync(CACHE, { recursive: true });
  const cli = path.join(ROOT, 'node_modules', 'create-strapi-app', 'bin', 'index.js');
  run(
    process.execPath,
    [
      cli,
      path.basename(APP),
      '--non-interactive',
      '--skip-cloud',
      '--no-run',
      '--typescript',
      '--use-npm',
      '--dbclient',
      'sqlite',
      '--dbfile',
      '.tmp/data.db',
      '--no-example',
      '--no-git-init',
      '--no-install',
    ],
    CACHE,
  );
  // As RECIPES: better-sqlite3 13 crashes on Node 20, and the cloud plugin is not needed.
  const pkgFile = path.join(APP, 'package.json');
  const pkg = JSON.parse(readFileSync(pkgFile, 'utf8')) as {
    dependencies: Record<string, string>;
    allowScripts?: Record<string, boolean>;
  };
  pkg.dependencies['better-sqlite3'] = '12.11.1';
  delete pkg.dependencies['@strapi/plugin-cloud'];
  // npm 11.19 runs no dependency's install script unless the app allows it: without this the
  // SQLite driver is never compiled (what `npm install-scripts approve better-sqlite3` writes).
  pkg.allowScripts = {
    ...pkg.allowScripts,
    'better-sqlite3': true,
    esbuild: true,
    '@swc/core': true,
  };
  writeFileSync(pkgFile, `${JSON.stringify(pkg, null, 2)}\n`);
  cpSync(path.join(APP, 'config', 'plugins.ts'), path.join(APP, 'config', 'plugins.ts.orig'));
  try {
    npm(['install', '--prefer-offline'], APP);
  } catch (error) {
    // A registry answer that lags behind what it lists elsewhere (ETARGET for a version a
    // dependency was published against days before) is asked again, revalidated: what this suite
    // tests is the package, not the freshness of the registry's copies.
    const reason = String(error)
      .split('\n')
      .filter((line) => line.startsWith('npm error'))
      .slice(0, 2)
      .join(' | ');
    console.log(`[package] npm install failed, asked again online: ${reason}`);
    npm(['install', '--prefer-online'], APP);
  }
}

/** The README's install section, applied to the fresh app's own config/plugins.ts. */
function configurePlugin(): void {
  const original = readFileSync(path.join(APP, 'config', 'plugins.ts.orig'), 'utf8');
  const opening = 'Core.Config.Plugin => ({\n';
  expect(original, 'the generated config/plugins.ts has the shape the README describes').toContain(
    opening,
  );
  const entry = `  'sitemap-ai': {
    enabled: true,
    config: {
      siteUrl: env('SITE_URL', '${SITE_URL}'),
      apiUrl: env('PUBLIC_URL', 'http://localhost:1337'),
      defaults: { license: '${LICENSE}' },
      contentTypes: {
        'api::article.article': { enabled: true, pathPattern: '/blog/{slug}' },
      },
    },
  },
`;
  writeFileSync(path.join(APP, 'config', 'plugins.ts'), original.replace(opening, opening + entry));
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('port')),
      );
    });
  });
}

function boot(port: number): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['sitemap-ai-boot.cjs'], {
      cwd: APP,
      env: cleanEnv({
        PORT: String(port),
        HOST: '127.0.0.1',
        PUBLIC_URL: `http://127.0.0.1:${port}`,
        NODE_ENV: 'production',
        FRESH_ADMIN_EMAIL: ADMIN.email,
        FRESH_ADMIN_PASSWORD: ADMIN.password,
      }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    const timer = setTimeout(() => reject(new Error(`the app did not start:\n${output}`)), 180_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (/^READY \d+$/m.test(output)) {
        clearTimeout(timer);
        resolve(child);
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the app exited (${code}) before it was ready:\n${output}`));
    });
  });
}

interface PackedFile {
  path: string;
  size: number;
}

interface ManifestItemBody {
  id: string;
  type: string;
  url: string;
  license: string;
  usage: Record<string, string>;
  checksum: string;
  version: string;
  citation?: { apa: string; bibtex: string };
  content_url: string;
}

describe('the packed tarball installed into a fresh Strapi app', () => {
  let packDir: string;
  let tarball: string;
  let files: PackedFile[];
  let child: ChildProcess | undefined;
  let baseUrl: string;
  let browser: Browser | undefined;

  beforeAll(async () => {
    packDir = mkdtempSync(path.join(os.tmpdir(), 'sitemap-ai-pack-'));
    // prepack builds the package first and may print before npm's JSON.
    const out = npm(['pack', '--json', '--pack-destination', packDir], ROOT);
    const packed = JSON.parse(out.slice(out.search(/^\[\s*$/m))) as {
      filename: string;
      size: number;
      unpackedSize: number;
      files: PackedFile[];
    }[];
    const [info] = packed;
    if (!info) throw new Error('npm pack printed no package');
    tarball = path.join(packDir, info.filename);
    files = info.files;
    console.log(
      `[package] ${info.filename}: ${files.length} files, ${(info.size / 1024).toFixed(0)} kB packed, ` +
        `${(info.unpackedSize / 1024).toFixed(0)} kB unpacked`,
    );

    ensureFreshApp();
    configurePlugin();
    cpSync(path.join(__dirname, 'app-files'), APP, { recursive: true });
    cpSync(path.join(__dirname, 'boot-app.cjs'), path.join(APP, 'sitemap-ai-boot.cjs'));
    for (const dir of ['.tmp', 'dist'])
      rmSync(path.join(APP, dir), { recursive: true, force: true });
    npm(['install', '--prefer-offline', tarball], APP);
    run(
      process.execPath,
      [path.join('node_modules', '@strapi', 'strapi', 'bin', 'strapi.js'), 'build'],
      APP,
      {
        NODE_ENV: 'production',
      },
    );

    const port = await freePort();
    baseUrl = `http://127.0.0.1:${port}`;
    child = await boot(port);
  });

  afterAll(async () => {
    await browser?.close();
    if (packDir) rmSync(packDir, { recursive: true, force: true });
    if (child && child.exitCode === null) {
      const exited = new Promise((resolve) => child!.once('exit', resolve));
      child.kill('SIGTERM');
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 10_000))]);
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  });

  it('ships the built server, admin, translations and public subpaths, and nothing from the repository', () => {
    const names = files.map((file) => file.path);
    for (const required of [
      'package.json',
      'README.md',
      'LICENSE',
      'CHANGELOG.md',
      'dist/server/index.js',
      'dist/server/index.mjs',
      'dist/admin/index.js',
      'dist/admin/index.mjs',
      'dist/anchors/index.js',
      'dist/anchors/index.mjs',
      'dist/anchors/anchors.d.ts',
      'dist/webhooks/index.js',
      'dist/webhooks/index.mjs',
      'dist/webhooks/webhooks.d.ts',
      'dist/interop/index.js',
      'dist/interop/index.mjs',
      'dist/interop/interop.d.ts',
      'dist/client/index.js',
      'dist/client/index.mjs',
      'dist/client/client.d.ts',
      'dist/cli/validate.js',
      'dist/server/drafting.js',
      'bin/sitemap-ai-validate.js',
      'bin/sitemap-ai.js',
    ]) {
      expect(names, required).toContain(required);
    }
    // The Slovak translations are a chunk of their own in both formats.
    expect(names.filter((name) => /^dist\/admin\/sk-[\w-]+\.m?js$/.test(name))).toHaveLength(2);
    const stray = names.filter(
      (name) =>
        /^(tests|playground|scripts|server|admin|shared|\.changeset|\.ci)\//.test(name) ||
        name.endsWith('.map') ||
        (name.endsWith('.ts') && !name.endsWith('.d.ts')) ||
        name.endsWith('.tsx'),
    );
    expect(stray).toEqual([]);
    const bytes = files.reduce((sum, file) => sum + file.size, 0);
    console.log(
      `[package] tarball contents: ${(bytes / 1024).toFixed(0)} kB in ${names.length} files`,
    );
    expect(statSync(tarball).size).toBeLessThan(2 * 1024 * 1024);
  });

  it('installs the package with its runtime dependencies, resolvable from the app', () => {
    const installed = JSON.parse(
      readFileSync(
        path.join(APP, 'node_modules', 'strapi-plugin-sitemap-ai', 'package.json'),
        'utf8',
      ),
    ) as { version: string; dependencies: Record<string, string> };
    const ours = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
      version: string;
    };
    expect(installed.version).toBe(ours.version);
    // Where Node looks for the plugin's own dependencies: its nested node_modules, then the app's.
    const plugin = path.join(APP, 'node_modules', 'strapi-plugin-sitemap-ai');
    const found = (dep: string) =>
      [path.join(plugin, 'node_modules'), path.join(APP, 'node_modules')].some((dir) =>
        existsSync(path.join(dir, dep, 'package.json')),
      );
    const missing = Object.keys(installed.dependencies).filter((dep) => !found(dep));
    expect(missing).toEqual([]);
    // The admin's UI libraries are peers the app provides, one copy each.
    for (const peer of ['react', 'react-dom', 'react-router-dom', 'styled-components']) {
      expect(existsSync(path.join(APP, 'node_modules', peer, 'package.json')), peer).toBe(true);
      expect(existsSync(path.join(plugin, 'node_modules', peer)), `${peer} twice`).toBe(false);
    }
  });

  it('serves the published article as fragments with licence, usage, checksum and citation after "Rebuild now"', async () => {
    const login = await fetch(`${baseUrl}/admin/login`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(ADMIN),
    });
    expect(login.status).toBe(200);
    const token = ((await login.json()) as { data: { token: string } }).data.token;

    const rebuild = await fetch(`${baseUrl}/sitemap-ai/rebuild`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
      body: '{}',
    });
    expect(rebuild.status).toBe(200);

    const manifest = await fetch(`${baseUrl}/api/sitemap-ai/manifest`);
    expect(manifest.status).toBe(200);
    const page = (await manifest.json()) as { spec: string; items: ManifestItemBody[] };
    expect(page.spec).toBe('sitemap-ai/1');
    const ids = page.items.map((item) => item.id).sort();
    expect(ids).toEqual([
      'article:fragments-for-agents:en',
      'article:fragments-for-agents:en:intro',
      'article:fragments-for-agents:en:what-a-fragment-is',
      'article:fragments-for-agents:en:what-a-fragment-is-table-1',
      'article:fragments-for-agents:en:why-it-has-a-licence',
    ]);
    for (const item of page.items) {
      expect(item.license, item.id).toBe(LICENSE);
      expect(item.usage, item.id).toEqual({
        train: 'deny',
        infer: 'allow-with-citation',
        cache: 'allow',
        redistribute: 'deny',
      });
      expect(item.checksum, item.id).toMatch(/^sha256:[0-9a-f]{64}$/);
      expect(item.citation?.apa, item.id).toContain('Fragments for agents');
      expect(item.url.startsWith(`${SITE_URL}/blog/fragments-for-agents`), item.id).toBe(true);
    }

    // The discovery documents answer from the installed package too (their `sitemap` dependency
    // included), stating the same policy.
    const robots = await fetch(`${baseUrl}/api/sitemap-ai/robots.txt`);
    expect(robots.status).toBe(200);
    const robotsText = await robots.text();
    expect(robotsText).toMatch(
      /User-agent: GPTBot\n(?:User-agent: .+\n)*(?:.+\n)*Disallow: \/blog\//,
    );
    const sitemap = await fetch(`${baseUrl}/api/sitemap-ai/sitemap.xml`);
    expect(sitemap.status).toBe(200);
    expect(await sitemap.text()).toContain(`<loc>${SITE_URL}/blog/fragments-for-agents</loc>`);
    const llms = await fetch(`${baseUrl}/api/sitemap-ai/llms.txt`);
    expect(await llms.text()).toContain(
      '/api/sitemap-ai/pages/article:fragments-for-agents:en.md)',
    );
    expect(llms.headers.get('content-usage')).toBe('train-ai=n, search=y');

    const section = page.items.find((item) => item.id.endsWith(':why-it-has-a-licence'));
    expect(section?.content_url.startsWith(baseUrl)).toBe(true);
    const content = await fetch(section!.content_url);
    expect(content.status).toBe(200);
    const text = await content.text();
    expect(text).toContain('licence and usage rules');
    expect(`sha256:${createHash('sha256').update(text, 'utf8').digest('hex')}`).toBe(
      section!.checksum,
    );
  });

  it('answers ESM and TypeScript consumers of the public subpaths through the exports map', () => {
    const esm = JSON.parse(run(process.execPath, ['consumer.mjs'], APP)) as Record<string, unknown>;
    expect(esm).toEqual({
      anchor: 'why-it-has-a-licence',
      anchors: ['intro-2', 'data', 'data-2'],
      verified: true,
      tampered: false,
      contentUsage: 'train-ai=n, search=y',
      clientChecksum: 'sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
      clientFile: expect.stringMatching(/^article\.a\.en/),
      clientWebhook: true,
      gptbotDisallowed: ['/blog/'],
    });
    const cjs = run(
      process.execPath,
      [
        '-e',
        "const { slugify } = require('strapi-plugin-sitemap-ai/anchors'); process.stdout.write(slugify('Čo je fragment?'))",
      ],
      APP,
    );
    expect(cjs).toBe('co-je-fragment');
    run(
      process.execPath,
      [
        path.join('node_modules', 'typescript', 'bin', 'tsc'),
        '--noEmit',
        '--strict',
        '--skipLibCheck',
        '--module',
        'esnext',
        '--moduleResolution',
        'bundler',
        '--types',
        'node',
        'consumer.ts',
      ],
      APP,
    );
  });

  it("serves the admin, whose plugin Settings page renders in the owner's Slovak", async () => {
    const adminHtml = await fetch(`${baseUrl}/admin`);
    expect(adminHtml.status).toBe(200);
    expect(await adminHtml.text()).toContain('<div id="strapi"');

    const login = await fetch(`${baseUrl}/admin/login`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(ADMIN),
    });
    const token = ((await login.json()) as { data: { token: string } }).data.token;
    const me = await fetch(`${baseUrl}/admin/users/me`, {
      method: 'PUT',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ preferedLanguage: 'sk' }),
    });
    expect(me.status).toBe(200);

    browser = await launchBrowser();
    const page = await browser.newPage({ viewport: { width: 1440, height: 1000 } });
    const ownErrors: string[] = [];
    page.on('pageerror', (error) => ownErrors.push(error.message));
    await page.goto(`${baseUrl}/admin/auth/login`);
    await page.locator('input[name="email"]').fill(ADMIN.email);
    await page.locator('input[name="password"]').fill(ADMIN.password);
    await page.locator('button[type="submit"]').click();
    await page.waitForURL((url) => !url.pathname.includes('/auth/'), { timeout: 60_000 });
    await page.goto(`${baseUrl}/admin/settings/sitemap-ai`);
    // Strings of the plugin's own Slovak translation file, not an English fallback.
    await page.getByText('Web a predvolené hodnoty').first().waitFor({ timeout: 60_000 });
    await expect(page.getByText('URL webu').first().isVisible()).resolves.toBe(true);
    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({
      path: path.join(ARTIFACTS, 'fresh-app-settings-sk.png'),
      fullPage: true,
    });
    expect(ownErrors).toEqual([]);
  });
});
