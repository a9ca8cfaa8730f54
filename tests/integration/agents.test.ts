import { generateKeyPairSync } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { signatureHeaders } from 'web-bot-auth';
import { signerFromJWK } from 'web-bot-auth/crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SitemapAiClient, webBotAuthSigner, type Ed25519PrivateJwk } from '../../client/src/client';
import { superAdminToken } from '../helpers/admin';
import { API } from '../helpers/manifest';
import { bootPlayground, testDatabases, type TestApp } from '../helpers/strapi';

/** The anonymous limit and the verified agents' limit of this suite. */
const ANONYMOUS_MAX = 20;
const VERIFIED_MAX = 40;
const GPTBOT_UA =
  'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; GPTBot/1.2; +https://openai.com/gptbot';
const PERPLEXITY_UA =
  'Mozilla/5.0 (compatible; PerplexityBot/1.0; +https://perplexity.ai/perplexitybot)';
const CLAUDE_UA = 'Mozilla/5.0 (compatible; ClaudeBot/1.0; +claudebot@anthropic.com)';

function keyPair() {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  return {
    private: privateKey.export({ format: 'jwk' }) as JsonWebKey,
    public: publicKey.export({ format: 'jwk' }) as JsonWebKey,
  };
}

/**
 * Verified agents (issue 12): an agent operator's key directory and published ranges are served
 * from 127.0.0.1; requests are signed with the suite's own Ed25519 keys through `web-bot-auth`.
 */
describe.each(testDatabases())('verified agents on %s', (client) => {
  let app: TestApp;
  let operator: Server;
  let operatorUrl = '';
  let base = '';
  const trusted = keyPair();
  const stranger = keyPair();

  beforeAll(async () => {
    operator = createServer((req, res) => {
      if (req.url === '/.well-known/http-message-signatures-directory') {
        res.setHeader('Content-Type', 'application/http-message-signatures-directory+json');
        res.end(JSON.stringify({ keys: [trusted.public] }));
      } else if (req.url === '/perplexity.json') {
        res.setHeader('Content-Type', 'application/json');
        res.end(
          JSON.stringify({ prefixes: [{ ipv4Prefix: '127.0.0.0/8' }, { ipv6Prefix: '::1/128' }] }),
        );
      } else if (req.url === '/claude.json') {
        res.end(JSON.stringify({ prefixes: [{ ipv4Prefix: '10.0.0.0/8' }] }));
      } else {
        res.statusCode = 404;
        res.end();
      }
    });
    await new Promise<void>((resolve) => operator.listen(0, '127.0.0.1', resolve));
    operatorUrl = `http://127.0.0.1:${(operator.address() as AddressInfo).port}`;
    app = await bootPlayground(client, {
      env: {
        SITEMAP_AI_RATE_LIMIT_MAX: String(ANONYMOUS_MAX),
        SITEMAP_AI_VERIFIED_RATE_LIMIT_MAX: String(VERIFIED_MAX),
        SITEMAP_AI_AGENT_DIRECTORIES: JSON.stringify([
          { family: 'GPTBot', url: `${operatorUrl}/.well-known/http-message-signatures-directory` },
        ]),
        SITEMAP_AI_AGENT_RANGES: JSON.stringify([
          { family: 'PerplexityBot', url: `${operatorUrl}/perplexity.json` },
          { family: 'ClaudeBot', url: `${operatorUrl}/claude.json` },
        ]),
        SITEMAP_AI_REQUIRE_VERIFIED: 'llms-full',
      },
    });
    const server = app.strapi.server.httpServer;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await app?.close();
    await new Promise((resolve) => operator?.close(resolve));
  });

  async function signed(
    path: string,
    key: JsonWebKey,
    options: { agent?: string; lifetimeMs?: number; createdAgoMs?: number } = {},
  ): Promise<Response> {
    const url = `${base}${path}`;
    const headers = new Headers({
      'User-Agent': GPTBOT_UA,
      'Signature-Agent': `"${options.agent ?? operatorUrl}"`,
    });
    const created = new Date(Date.now() - (options.createdAgoMs ?? 0));
    const signature = await signatureHeaders(
      { method: 'GET', url, headers },
      await signerFromJWK(key),
      {
        created,
        expires: new Date(created.getTime() + (options.lifetimeMs ?? 60_000)),
      },
    );
    headers.set('Signature', signature.Signature);
    headers.set('Signature-Input', signature['Signature-Input']);
    return fetch(url, { headers });
  }

  const plain = (path: string, userAgent: string) =>
    fetch(`${base}${path}`, { headers: { 'User-Agent': userAgent } });

  it('gives an agent whose Web Bot Auth signature verifies against its operator’s key directory its own, higher limit', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < ANONYMOUS_MAX + 10; i += 1) {
      const res = await signed(`${API}/manifest?limit=1`, trusted.private);
      statuses.push(res.status);
      expect(res.headers.get('ratelimit-limit')).toBe(String(VERIFIED_MAX));
    }
    // More than the anonymous limit, all answered: the verified tier counts the agent, not the address.
    expect(statuses.every((s) => s === 200)).toBe(true);
  });

  it('verifies the client kit’s own Web Bot Auth signer end to end, retries included', async () => {
    const client = new SitemapAiClient({
      baseUrl: base,
      userAgent: GPTBOT_UA,
      signRequest: webBotAuthSigner({
        privateKey: trusted.private as Ed25519PrivateJwk,
        signatureAgent: operatorUrl,
      }),
    });
    for (let i = 0; i < 3; i += 1) {
      const answer = await client.get('manifest?limit=1');
      expect(answer.status).toBe(200);
      expect(answer.headers.get('ratelimit-limit')).toBe(String(VERIFIED_MAX));
    }
    // The same client signing with a key the operator never published is limited like any bot.
    const impostor = new SitemapAiClient({
      baseUrl: base,
      userAgent: GPTBOT_UA,
      signRequest: webBotAuthSigner({
        privateKey: stranger.private as Ed25519PrivateJwk,
        signatureAgent: operatorUrl,
      }),
    });
    expect((await impostor.get('manifest?limit=1')).headers.get('ratelimit-limit')).toBe(
      String(ANONYMOUS_MAX),
    );
  });

  it('treats a claim it cannot verify like any bot: a stranger’s key, an expired or overlong signature, an untrusted directory, no signature', async () => {
    const unverified = [
      await signed(`${API}/manifest?limit=1`, stranger.private),
      await signed(`${API}/manifest?limit=1`, trusted.private, { createdAgoMs: 120_000 }),
      await signed(`${API}/manifest?limit=1`, trusted.private, { lifetimeMs: 2 * 86_400_000 }),
      await signed(`${API}/manifest?limit=1`, trusted.private, {
        agent: 'https://agents.example.org',
      }),
      await plain(`${API}/manifest?limit=1`, GPTBOT_UA),
      await plain(`${API}/manifest?limit=1`, CLAUDE_UA), // 127.0.0.1 is not in ClaudeBot's ranges
    ];
    for (const res of unverified) {
      expect(res.status).toBe(200);
      expect(res.headers.get('ratelimit-limit')).toBe(String(ANONYMOUS_MAX));
    }
  });

  it('verifies an agent by the address ranges its operator publishes', async () => {
    for (let i = 0; i < ANONYMOUS_MAX + 5; i += 1) {
      const res = await plain(`${API}/manifest?limit=1`, PERPLEXITY_UA);
      expect(res.status).toBe(200);
      expect(res.headers.get('ratelimit-limit')).toBe(String(VERIFIED_MAX));
    }
  });

  it('lets the owner issue, list and revoke API keys for partners’ agents, each with its own limit', async () => {
    const owner = await superAdminToken(app);
    const auth = { Authorization: `Bearer ${owner}` };
    await app.http.post('/sitemap-ai/agents/keys').set(auth).send({}).expect(400);
    await app.http
      .post('/sitemap-ai/agents/keys')
      .set(auth)
      .send({ label: 'Partner', rateMax: 0 })
      .expect(400);
    await app.http
      .post('/sitemap-ai/agents/keys')
      .set(auth)
      .send({ label: 'Partner', extra: 1 })
      .expect(400);
    await app.http.post('/sitemap-ai/agents/keys').send({ label: 'Partner' }).expect(401);
    const issued = (
      await app.http
        .post('/sitemap-ai/agents/keys')
        .set(auth)
        .send({ label: 'Partner Bot', rateMax: 7 })
        .expect(201)
    ).body.data as { key: string; agent: { id: number; prefix: string; label: string } };
    expect(issued.key).toMatch(/^sai_[A-Za-z0-9_-]{43}$/);
    expect(issued.key.startsWith(issued.agent.prefix)).toBe(true);

    // Only the hash is kept: the listing and the table never show the key.
    const listed = (await app.http.get('/sitemap-ai/agents/keys').set(auth).expect(200)).body.data;
    expect(JSON.stringify(listed)).not.toContain(issued.key);
    const rows = await app.strapi.db.query('plugin::sitemap-ai.agent-key').findMany({});
    expect(JSON.stringify(rows)).not.toContain(issued.key);

    const ways: Record<string, string>[] = [
      { 'X-Sitemap-AI-Key': issued.key },
      { Authorization: `Bearer ${issued.key}` },
    ];
    for (const headers of ways) {
      const res = await fetch(`${base}${API}/manifest?limit=1`, { headers });
      expect(res.status).toBe(200);
      expect(res.headers.get('ratelimit-limit')).toBe('7');
    }
    // A registered agent passes the verification switch too.
    expect(
      (await fetch(`${base}${API}/llms-full.txt`, { headers: { 'X-Sitemap-AI-Key': issued.key } }))
        .status,
    ).toBe(200);

    for (const bad of ['sai_short', `sai_${'x'.repeat(43)}`]) {
      const res = await fetch(`${base}${API}/manifest?limit=1`, {
        headers: { 'X-Sitemap-AI-Key': bad },
      });
      expect(res.status).toBe(401);
    }
    await app.http.post(`/sitemap-ai/agents/keys/${issued.agent.id}/revoke`).set(auth).expect(200);
    await app.http.post('/sitemap-ai/agents/keys/999999/revoke').set(auth).expect(404);
    const revoked = await fetch(`${base}${API}/manifest?limit=1`, {
      headers: { 'X-Sitemap-AI-Key': issued.key },
    });
    expect(revoked.status).toBe(401);
    expect(((await revoked.json()) as { error: { name: string } }).error.name).toBe(
      'InvalidAgentKeyError',
    );
  });

  it('serves llms-full.txt only to verified agents when the switch asks for it; the manifest stays open', async () => {
    const refused = await plain(`${API}/llms-full.txt`, GPTBOT_UA);
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { error: { message: string } }).error.message).toMatch(
      /only to verified AI agents/,
    );
    const served = await signed(`${API}/llms-full.txt`, trusted.private);
    expect(served.status).toBe(200);
    expect(await served.text()).toContain('- Licence: ');
  });

  it('logs each request with its tier, and a flood of anonymous requests meets 429 while a verified agent goes on', async () => {
    let limited: Response | null = null;
    // The limit counts in fixed windows of a minute: a flood that a new window starts in the middle
    // of meets 429 within that window's ANONYMOUS_MAX + 1 requests, so it runs up to twice as long.
    for (let i = 0; i < 2 * ANONYMOUS_MAX + 2 && !limited; i += 1) {
      const res = await plain(`${API}/manifest?limit=1`, 'curl/8.5.0');
      if (res.status === 429) limited = res;
    }
    expect(limited?.headers.get('retry-after')).toMatch(/^\d+$/);
    expect((await signed(`${API}/manifest?limit=1`, trusted.private)).status).toBe(200);

    await app.strapi.plugin('sitemap-ai').service('access-log').flush();
    const entries = (await app.strapi.plugin('sitemap-ai').service('access-log').list(10_000)) as {
      agent: string;
      tier: string;
      status: number;
    }[];
    const tiers = new Set(entries.map((e) => `${e.agent}:${e.tier}`));
    expect(tiers).toContain('GPTBot:verified');
    expect(tiers).toContain('GPTBot:unverified');
    expect(tiers).toContain('PerplexityBot:verified');
    expect(tiers).toContain('ClaudeBot:unverified');
    expect(tiers).toContain('other-bot:anonymous');
    expect([...tiers].some((t) => t.endsWith(':registered'))).toBe(true);
  });
});
