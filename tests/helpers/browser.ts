import { copyFileSync, existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type Locator, type Page } from 'playwright-core';
import { bootPlayground, PLAYGROUND, ROOT, type TestApp } from './strapi';

/** Debian's Chromium (installed by .ci/run); never a downloaded browser. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Screenshots of the run: an ignored folder, so a test run leaves git clean. */
export const SCREENSHOTS = path.join(ROOT, 'artifacts', 'screenshots');

/**
 * The copies the README shows (README "In the admin"). A run refreshes them only when asked:
 * `SITEMAP_AI_UPDATE_SCREENSHOTS=1 npx vitest run --project e2e` (after the
 * playground's admin build), then commit what changed.
 */
export const DOCS_SCREENSHOTS = path.join(ROOT, 'docs', 'screenshots');
const UPDATE_DOCS_SCREENSHOTS = process.env.SITEMAP_AI_UPDATE_SCREENSHOTS === '1';

export const PASSWORD = 'Test-Admin-2026';

export interface AdminApp {
  app: TestApp;
  baseUrl: string;
}

/** Boot the playground with its built admin panel on a free local port. */
export async function startAdminApp(env: Record<string, string> = {}): Promise<AdminApp> {
  if (!existsSync(path.join(PLAYGROUND, 'build', 'index.html'))) {
    throw new Error(
      'The playground admin is not built: run `npm test` (it builds it) or `cd playground && npx strapi build`.',
    );
  }
  const app = await bootPlayground('sqlite', { adminPanel: true, env });
  await new Promise<void>((resolve) =>
    app.strapi.server.httpServer.listen(0, '127.0.0.1', () => resolve()),
  );
  const address = app.strapi.server.httpServer.address();
  if (!address || typeof address === 'string') throw new Error('no port');
  return { app, baseUrl: `http://127.0.0.1:${address.port}` };
}

export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/** Log in through the admin's login form, as a person does. */
export async function login(
  page: Page,
  baseUrl: string,
  email: string,
  password = PASSWORD,
): Promise<void> {
  await page.goto(`${baseUrl}/admin/auth/login`);
  await page.locator('input[name="email"]').fill(email);
  await page.locator('input[name="password"]').fill(password);
  await page.getByRole('button', { name: /log ?in/i }).click();
  await page.waitForURL((url) => !url.pathname.includes('/auth/'), { timeout: 60_000 });
}

export async function screenshot(page: Page, name: string, target?: Locator): Promise<string> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  const file = path.join(SCREENSHOTS, `${name}.png`);
  // The admin scrolls inside its layout, so a part below the fold is shot as an element.
  if (target) await target.screenshot({ path: file });
  else await page.screenshot({ path: file, fullPage: true });
  if (UPDATE_DOCS_SCREENSHOTS) {
    mkdirSync(DOCS_SCREENSHOTS, { recursive: true });
    copyFileSync(file, path.join(DOCS_SCREENSHOTS, `${name}.png`));
  }
  return file;
}
