import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { superAdminToken } from '../helpers/admin';
import { launchBrowser, login, startAdminApp, type AdminApp } from '../helpers/browser';

describe('the built admin in Chromium', () => {
  let server: AdminApp;
  let browser: Browser;

  beforeAll(async () => {
    server = await startAdminApp();
    await superAdminToken(server.app, 'owner@example.com');
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    await server?.app.close();
  });

  it('logs a super admin in and loads the plugin without console errors of its own', async () => {
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await login(page, server.baseUrl, 'owner@example.com');
    await page
      .getByRole('link', { name: /content manager/i })
      .first()
      .waitFor({ timeout: 60_000 });
    expect(
      await page
        .getByRole('link', { name: /content manager/i })
        .first()
        .isVisible(),
    ).toBe(true);
    expect(errors).toEqual([]);
    await page.close();
  });
});
