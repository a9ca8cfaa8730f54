import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootPlayground, type TestApp } from '../helpers/strapi';
import { API } from '../helpers/manifest';

describe('rate limit of the public routes', () => {
  let app: TestApp;

  beforeAll(async () => {
    app = await bootPlayground('sqlite', {
      env: { SITEMAP_AI_RATE_LIMIT_MAX: '5', PLAYGROUND_SEED: 'false' },
    });
  });

  afterAll(async () => {
    await app?.close();
  });

  it('answers 429 with Retry-After once a client passes the limit, across all public routes', async () => {
    const statuses: number[] = [];
    for (const path of [
      '/manifest',
      '/schema.json',
      '/manifest.xml',
      '/manifest',
      '/fragments/article:x:en',
      '/manifest',
    ]) {
      statuses.push((await app.http.get(`${API}${path}`)).status);
    }
    expect(statuses.slice(0, 5)).toEqual([200, 200, 200, 200, 404]);
    const limited = await app.http.get(`${API}/manifest`);
    expect(statuses[5]).toBe(429);
    expect(limited.status).toBe(429);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(Number(limited.headers['retry-after'])).toBeLessThanOrEqual(60);
    expect(limited.body.error).toMatchObject({ status: 429, name: 'RateLimitError' });
  });
});
