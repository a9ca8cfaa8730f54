import { repositories } from '../repositories';
import type { Core } from '@strapi/strapi';
import type { Context } from 'koa';
import { randomBytes, type JsonWebKey } from 'node:crypto';
import { BlockList, isIP } from 'node:net';
import { helpers, jwkToKeyID, verify, type VerificationParams } from 'web-bot-auth';
import { verifierFromJWK } from 'web-bot-auth/crypto';
import { classifyUserAgent, type AgentFamily } from '../core/agents';
import type { AgentsConfig } from '../core/config';
import { InvalidAgentKeyError, VerificationRequiredError, messageOf } from '../core/errors';
import { type AgentKeyRecord } from '../repositories/agent-key-repository';
import type { AgentKeyIssued, AgentKeySummary } from '../../../shared/contracts/admin';
import { getService } from '../utils/get-service';
import { sha256Hex } from '../core/canonical';

/** How a request's caller is treated (docs/protocol.md §7.2). */
export type AgentTier = 'registered' | 'verified' | 'unverified' | 'anonymous';

/** Registered agents' keys: `sai_` and 43 base64url characters (32 random bytes). */
const KEY_PATTERN = /^sai_[A-Za-z0-9_-]{43}$/;
/** What an instance knows of a key is refreshed this often (a revocation reaches every instance within it). */
const KEY_CACHE_MS = 30_000;

export interface AgentIdentity {
  tier: AgentTier;
  /** The agent family: the configured one when verified, else what the User-Agent claims. */
  family: string;
  /** How it was verified, and as whom (a key id or the family's range list). */
  method?: 'web-bot-auth' | 'ip-range' | 'api-key';
  /** A registered agent's own limit per window (null: the verified agents' limit). */
  rateMax?: number | null;
  subject?: string;
  /** Why a claim was not accepted (logged, never sent to the client). */
  reason?: string;
}

/** A signature may live at most this long (created → expires), whatever it says. */
const MAX_SIGNATURE_LIFETIME_MS = 24 * 3600_000;
/** Fetches of key directories and range lists give up after this long. */
const FETCH_TIMEOUT_MS = 5_000;
/** A directory or range list larger than this is refused. */
const MAX_DOCUMENT_BYTES = 1_000_000;

/** Families that are no claim of an AI agent. */
const ANONYMOUS_FAMILIES: ReadonlySet<AgentFamily> = new Set(['other-bot', 'browser', 'unknown']);

interface Cached<T> {
  at: number;
  value: Promise<T>;
}

/** The value of `Signature-Agent`: a quoted URL, or a dictionary member (`sig1="https://…"`). */
export function signatureAgentUrl(header: string | undefined): string | null {
  if (!header) return null;
  const match = /"([^"]{1,2000})"/.exec(header);
  const raw = match ? match[1]! : header.trim();
  try {
    const url = new URL(raw);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.href : null;
  } catch {
    return null;
  }
}

/** CIDR prefixes of a published range list (`{ prefixes: [{ ipv4Prefix | ipv6Prefix }] }` or a list of strings). */
export function rangesOf(document: unknown): string[] {
  const list: unknown[] = Array.isArray(document)
    ? document
    : document &&
        typeof document === 'object' &&
        Array.isArray((document as { prefixes?: unknown }).prefixes)
      ? (document as { prefixes: unknown[] }).prefixes
      : [];
  const ranges: string[] = [];
  for (const entry of list) {
    if (typeof entry === 'string') ranges.push(entry);
    else if (entry && typeof entry === 'object') {
      const e = entry as { ipv4Prefix?: unknown; ipv6Prefix?: unknown };
      if (typeof e.ipv4Prefix === 'string') ranges.push(e.ipv4Prefix);
      if (typeof e.ipv6Prefix === 'string') ranges.push(e.ipv6Prefix);
    }
  }
  return ranges;
}

/** A BlockList of CIDR prefixes; malformed ones are skipped. */
export function blockListOf(ranges: readonly string[]): BlockList {
  const list = new BlockList();
  for (const range of ranges) {
    const [address, bits] = range.split('/');
    const type = isIP(address ?? '');
    const prefix = Number(bits);
    if (!type || !Number.isInteger(prefix) || prefix < 0 || prefix > (type === 4 ? 32 : 128))
      continue;
    list.addSubnet(address!, prefix, type === 4 ? 'ipv4' : 'ipv6');
  }
  return list;
}

function hashKey(key: string): string {
  return sha256Hex(key);
}

function summaryOf(record: AgentKeyRecord): AgentKeySummary {
  return {
    id: record.id,
    label: record.label,
    prefix: record.keyPrefix,
    rateMax: record.rateMax,
    issuedAt: record.issuedAt,
    revokedAt: record.revokedAt,
  };
}

/** An IPv4-mapped IPv6 address (`::ffff:1.2.3.4`) as the IPv4 address it is. */
function plainIp(ip: string): string {
  return ip.startsWith('::ffff:') && isIP(ip.slice(7)) === 4 ? ip.slice(7) : ip;
}

/**
 * Who is calling (docs/protocol.md §7.2): an AI agent proven by a Web Bot Auth signature (RFC
 * 9421, Ed25519, keys from a configured directory) or by an address in the ranges its operator
 * publishes is `verified`; a request that claims a known AI agent without such proof is
 * `unverified`; anything else `anonymous`. Directories and range lists are fetched when first
 * needed and trusted for `agents.cacheSeconds`; a fetch that fails verifies nobody meanwhile.
 */
export const createAgentsService = ({ strapi }: { strapi: Core.Strapi }) => {
  const directories = new Map<string, Cached<Map<string, JsonWebKey>>>();
  const keyCache = new Map<string, { at: number; record: Promise<AgentKeyRecord | null> }>();
  const keyRepository = repositories(strapi).agentKeys;
  const ranges = new Map<string, Cached<BlockList>>();
  const config = (): AgentsConfig => getService(strapi, 'config').config().agents;

  async function fetchJson(url: string): Promise<unknown> {
    const response = await fetch(url, {
      signal: AbortSignal.timeout(FETCH_TIMEOUT_MS),
      headers: { Accept: 'application/json, application/http-message-signatures-directory+json' },
      redirect: 'error',
    });
    if (!response.ok) throw new Error(`${url} answered ${response.status}`);
    const text = await response.text();
    if (text.length > MAX_DOCUMENT_BYTES)
      throw new Error(`${url} is larger than ${MAX_DOCUMENT_BYTES} bytes`);
    return JSON.parse(text) as unknown;
  }

  function cached<T>(map: Map<string, Cached<T>>, url: string, load: () => Promise<T>): Promise<T> {
    const known = map.get(url);
    if (known && Date.now() - known.at < config().cacheSeconds * 1000) return known.value;
    const value = load();
    map.set(url, { at: Date.now(), value });
    // A failed fetch is retried after a minute, not after the whole cache time.
    value.catch(() =>
      map.set(url, { at: Date.now() - config().cacheSeconds * 1000 + 60_000, value }),
    );
    return value;
  }

  /** The Ed25519 keys of a directory, by JWK thumbprint (the `keyid` a signature names). */
  function keysOf(url: string): Promise<Map<string, JsonWebKey>> {
    return cached(directories, url, async () => {
      const document = (await fetchJson(url)) as { keys?: unknown };
      const keys = new Map<string, JsonWebKey>();
      for (const key of Array.isArray(document.keys) ? document.keys : []) {
        const jwk = key as JsonWebKey;
        if (jwk?.kty !== 'OKP' || jwk.crv !== 'Ed25519' || typeof jwk.x !== 'string') continue;
        const id = await jwkToKeyID(jwk, helpers.WEBCRYPTO_SHA256, helpers.BASE64URL_DECODE);
        keys.set(id, { kty: jwk.kty, crv: jwk.crv, x: jwk.x });
      }
      return keys;
    });
  }

  function rangesFor(url: string): Promise<BlockList> {
    return cached(ranges, url, async () => blockListOf(rangesOf(await fetchJson(url))));
  }

  async function bySignature(ctx: Context): Promise<AgentIdentity | null> {
    const signature = ctx.get('Signature');
    const input = ctx.get('Signature-Input');
    if (!signature || !input) return null;
    const claimed = classifyUserAgent(ctx.get('User-Agent'));
    const agentUrl = signatureAgentUrl(ctx.get('Signature-Agent'));
    const directory = config().directories.find((d) => {
      if (!agentUrl) return false;
      const a = new URL(agentUrl);
      const b = new URL(d.url);
      return a.origin === b.origin;
    });
    if (!directory)
      return {
        tier: 'unverified',
        family: claimed,
        reason: 'Signature-Agent is not a configured key directory',
      };
    if (!/"@authority"/.test(input))
      return {
        tier: 'unverified',
        family: claimed,
        reason: 'the signature does not cover @authority',
      };
    try {
      const keys = await keysOf(directory.url);
      const headers = new Headers();
      for (const [name, value] of Object.entries(ctx.headers)) {
        if (typeof value === 'string') headers.set(name, value);
        else if (Array.isArray(value)) headers.set(name, value.join(', '));
      }
      let keyid = '';
      await verify(
        { method: ctx.method, url: `${ctx.protocol}://${ctx.host}${ctx.originalUrl}`, headers },
        async (data: string, bytes: Uint8Array, params: VerificationParams) => {
          if (params.expires.getTime() - params.created.getTime() > MAX_SIGNATURE_LIFETIME_MS)
            throw new Error('the signature is valid for longer than a day');
          const jwk = keys.get(params.keyid);
          if (!jwk) throw new Error(`no key ${params.keyid} in ${directory.url}`);
          await (
            await verifierFromJWK(jwk)
          )(data, bytes, params);
          keyid = params.keyid;
        },
      );
      return { tier: 'verified', family: directory.family, method: 'web-bot-auth', subject: keyid };
    } catch (error) {
      return {
        tier: 'unverified',
        family: claimed,
        reason: messageOf(error),
      };
    }
  }

  /** A registered agent's key, from `X-Sitemap-AI-Key` or `Authorization: Bearer sai_…`. */
  function presentedKey(ctx: Context): string | null {
    const header = ctx.get('X-Sitemap-AI-Key').trim();
    if (header) return header;
    const bearer = /^Bearer\s+(sai_\S*)$/i.exec(ctx.get('Authorization').trim());
    return bearer ? bearer[1]! : null;
  }

  async function byKey(ctx: Context): Promise<AgentIdentity | null> {
    const key = presentedKey(ctx);
    if (key === null) return null;
    if (!KEY_PATTERN.test(key)) throw new InvalidAgentKeyError();
    const hash = hashKey(key);
    let known = keyCache.get(hash);
    if (!known || Date.now() - known.at > KEY_CACHE_MS) {
      known = { at: Date.now(), record: keyRepository.byHash(hash) };
      keyCache.set(hash, known);
      if (keyCache.size > 10_000) keyCache.delete(keyCache.keys().next().value!);
    }
    const record = await known.record;
    if (!record || record.revokedAt) throw new InvalidAgentKeyError();
    return {
      tier: 'registered',
      family: record.label,
      method: 'api-key',
      subject: `key:${record.id}`,
      rateMax: record.rateMax,
    };
  }

  async function byAddress(ctx: Context, claimed: AgentFamily): Promise<AgentIdentity | null> {
    const lists = config().ipRanges.filter((r) => r.family.toLowerCase() === claimed.toLowerCase());
    if (lists.length === 0) return null;
    const ip = plainIp(ctx.ip || '');
    const type = isIP(ip);
    if (!type) return { tier: 'unverified', family: claimed, reason: 'no client address' };
    for (const list of lists) {
      try {
        if ((await rangesFor(list.url)).check(ip, type === 4 ? 'ipv4' : 'ipv6'))
          return { tier: 'verified', family: list.family, method: 'ip-range', subject: list.url };
      } catch (error) {
        strapi.log.warn(
          `[sitemap-ai] agents: the range list ${list.url} could not be read: ${messageOf(error)}`,
        );
      }
    }
    return {
      tier: 'unverified',
      family: claimed,
      reason: 'the address is not in the published ranges',
    };
  }

  return {
    /** Who is calling; memoised on the request, so middlewares ask once. */
    async identify(ctx: Context): Promise<AgentIdentity> {
      const state = ctx.state as {
        sitemapAiAgent?: Promise<AgentIdentity>;
        sitemapAiTier?: AgentTier;
      };
      state.sitemapAiAgent ??= (async (): Promise<AgentIdentity> => {
        const registered = await byKey(ctx);
        if (registered) return registered;
        const signed = await bySignature(ctx);
        if (signed) return signed;
        const claimed = classifyUserAgent(ctx.get('User-Agent'));
        if (ANONYMOUS_FAMILIES.has(claimed)) return { tier: 'anonymous', family: claimed };
        return (
          (await byAddress(ctx, claimed)) ?? {
            tier: 'unverified',
            family: claimed,
            reason: 'no verification is configured for this family',
          }
        );
      })().then((identity: AgentIdentity) => {
        // The access log, written after the response, reads the tier from here.
        state.sitemapAiTier = identity.tier;
        return identity;
      });
      return state.sitemapAiAgent;
    },

    /** Refuse what the site serves only to verified agents (`agents.requireVerifiedFor`). */
    async requireVerified(ctx: Context, what: 'content' | 'llms-full'): Promise<void> {
      if (!config().requireVerifiedFor.includes(what)) return;
      const { tier } = await this.identify(ctx);
      if (tier !== 'verified' && tier !== 'registered')
        throw new VerificationRequiredError(
          what === 'content' ? 'fragment content' : 'llms-full.txt',
        );
    },

    /** Forget fetched directories and range lists (the configuration changed). */
    reset(): void {
      directories.clear();
      ranges.clear();
      keyCache.clear();
    },

    /** The registered agents' keys, newest first (never the keys themselves). */
    async listKeys(): Promise<AgentKeySummary[]> {
      return (await keyRepository.list()).map(summaryOf);
    },

    /** Issue a key for a partner's agent: returned this once, only its SHA-256 is kept. */
    async issueKey(input: { label: string; rateMax: number | null }): Promise<AgentKeyIssued> {
      const key = `sai_${randomBytes(32).toString('base64url')}`;
      const record = await keyRepository.create({
        label: input.label,
        keyHash: hashKey(key),
        keyPrefix: key.slice(0, 10),
        rateMax: input.rateMax,
        issuedAt: new Date().toISOString(),
      });
      return { key, agent: summaryOf(record) };
    },

    /** Revoke a key: refused at once on this instance, within 30 s on the others. */
    async revokeKey(id: number): Promise<AgentKeySummary | null> {
      const record = await keyRepository.revoke(id, new Date().toISOString());
      if (record) keyCache.delete(record.keyHash);
      return record ? summaryOf(record) : null;
    },
  };
};

export type AgentsService = ReturnType<typeof createAgentsService>;
