import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import * as anchors from '../../server/src/core/anchors';
import * as core from '../../server/src/core';
import * as interop from '../../server/src/core/interop';
import * as client from '../../client/src/client';

const ROOT = join(__dirname, '..', '..');

/** `strapi-plugin-sitemap-ai/anchors`, imported by sites' front ends. */
const ANCHOR_EXPORTS = ['AnchorRegistry', 'headingAnchors', 'slugify', 'subFragmentAnchor'];

/** `strapi-plugin-sitemap-ai/interop`, the vocabularies for front ends (README "Discovery"). */
const INTEROP_EXPORTS = [
  'AIPREF_ATTACH_DRAFT',
  'AIPREF_VOCAB_DRAFT',
  'AI_CRAWLERS',
  'AI_CRAWLER_TOKENS',
  'ROLE_KIND',
  'RSL_MEDIA_TYPE',
  'RSL_NAMESPACE',
  'contentSignal',
  'contentUsage',
  'escapePath',
  'isUsage',
  'llmsLink',
  'pageJsonLd',
  'pathRules',
  'patternMatches',
  'patternPrefix',
  'permits',
  'policyHeaders',
  'requiresCitation',
  'robotsGroups',
  'robotsTxt',
  'rslUsage',
  'rslXml',
  'ruleFor',
  'strictestUsage',
  'tdmReservation',
  'tdmrepJson',
  'usageKey',
  'usageLine',
  'usageSignals',
];

/** `strapi-plugin-sitemap-ai/client`, the agents' client kit (README "Client kit"). */
const CLIENT_EXPORTS = [
  'ChecksumMismatchError',
  'DEFAULT_PREFIX',
  'EXPORT_DOCUMENTS',
  'EXPORT_STATE_FILE',
  'GoneError',
  'HttpError',
  'MAX_PAGE_LIMIT',
  'MIRROR_CONTENT_DIR',
  'MIRROR_FORMAT',
  'MIRROR_INDEX_FILE',
  'MIRROR_STATE_FILE',
  'NetworkError',
  'SPEC',
  'SitemapAiClient',
  'SitemapAiClientError',
  'WEBHOOK_SIGNATURE_HEADER',
  'apiBase',
  'assistantVisitBeacon',
  'checksumOf',
  'emptyMirrorState',
  'exportSite',
  'fileNameForId',
  'mirrorIndex',
  'parseMirrorState',
  'reportAssistantVisit',
  'retryAfterMs',
  'sitemapParts',
  'syncMirror',
  'verifyChecksum',
  'verifyWebhook',
  'webBotAuthSigner',
  'writeFileAtomic',
];

describe('public API surface', () => {
  it('Given server/src/core/anchors.ts, When its exports are listed, Then they are exactly the front-end anchors API', () => {
    expect(Object.keys(anchors).sort()).toEqual(ANCHOR_EXPORTS);
  });

  it('Given the core index, When its anchors exports are compared, Then they are the same functions as the standalone module', () => {
    for (const name of ANCHOR_EXPORTS)
      expect(core[name as keyof typeof core]).toBe(anchors[name as keyof typeof anchors]);
  });

  // That anchors.ts and interop.ts import nothing is a lint rule (eslint.config.mjs).
  it('Given the interop module, When its exports are listed, Then they are the documented helpers', () => {
    expect(Object.keys(interop).sort()).toEqual(INTEROP_EXPORTS);
  });

  it('Given the client module, When its source is read, Then it imports only Node built-ins and the webhooks module (bundled in), and exports the documented API', () => {
    const source = readFileSync(join(ROOT, 'client/src/client.ts'), 'utf8');
    const imports = [...source.matchAll(/^import .* from '([^']+)';$/gm)].map((m) => m[1]);
    expect(imports).toEqual([
      'node:crypto',
      'node:fs/promises',
      'node:path',
      'web-bot-auth',
      'web-bot-auth/crypto',
      '../../server/src/core/webhooks',
    ]);
    expect(source).not.toMatch(/\brequire\(/);
    expect(Object.keys(client).sort()).toEqual(CLIENT_EXPORTS);
    expect(client.WEBHOOK_SIGNATURE_HEADER).toBe(core.WEBHOOK_SIGNATURE_HEADER);
    expect(client.SPEC).toBe(core.SPEC_VERSION);
    expect(client.MAX_PAGE_LIMIT).toBe(core.PAGE_LIMIT_MAX);
  });

  it('Given package.json, When its public entry points are read, Then each names its source and its built CJS, ESM and types in that order', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
      exports: Record<string, string | Record<string, string>>;
    };
    expect(Object.keys(pkg.exports).sort()).toEqual([
      './anchors',
      './client',
      './interop',
      './package.json',
      './strapi-admin',
      './strapi-server',
      './webhooks',
    ]);
    expect(pkg.exports['./anchors']).toEqual({
      types: './dist/anchors/anchors.d.ts',
      source: './server/src/core/anchors.ts',
      import: './dist/anchors/index.mjs',
      require: './dist/anchors/index.js',
      default: './dist/anchors/index.js',
    });
    for (const [key, entry] of Object.entries(pkg.exports)) {
      if (typeof entry === 'string') continue;
      expect(Object.keys(entry), key).toEqual(['types', 'source', 'import', 'require', 'default']);
      expect(() => readFileSync(join(ROOT, entry.source!)), `${key} source`).not.toThrow();
    }
  });
});
