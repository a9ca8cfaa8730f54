import fc from 'fast-check';
import { XMLParser } from 'fast-xml-parser';
import robotsParser from 'robots-parser';
import { parseDictionary } from 'structured-headers';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { USAGE_KINDS, USAGE_VALUES, type UsageKind } from '../../shared/constants';
import type { ManifestItem, Usage as ManifestUsage } from '../../shared/contracts/manifest';
import {
  AI_CRAWLERS,
  ROLE_KIND,
  contentSignal,
  contentUsage,
  escapePath,
  llmsLink,
  pageJsonLd,
  pathRules,
  patternPrefix,
  permits,
  policyHeaders,
  robotsGroups,
  robotsTxt,
  rslXml,
  ruleFor,
  strictestUsage,
  tdmrepJson,
  type InteropItem,
  type PagePolicy,
  type PolicyDocument,
  type Usage,
} from '../../server/src/core/interop';
import { cascadePolicy } from '../../server/src/core/policy';
import type { MetadataOverride } from '../../server/src/core/types';

const ORIGIN = 'https://example.com';
const LICENSES = [
  'https://example.com/license#tdm',
  'https://creativecommons.org/licenses/by/4.0/',
];

function documentOf(rules: PolicyDocument['rules']): PolicyDocument {
  return {
    spec: 'sitemap-ai/1',
    site: { url: ORIGIN, name: 'example.com' },
    snapshot: { id: '3', created_at: '2026-12-01T00:00:00.000Z' },
    vocabularies: {
      aipref: 'draft-ietf-aipref-vocab-06',
      aipref_attach: 'draft-ietf-aipref-attach-03',
      rsl: '1.0',
      tdmrep: '1.0',
    },
    urls: {
      manifest: `${ORIGIN}/api/sitemap-ai/manifest`,
      sitemap: `${ORIGIN}/api/sitemap-ai/sitemap.xml`,
      rsl: `${ORIGIN}/api/sitemap-ai/rsl.xml`,
      tdmrep: `${ORIGIN}/api/sitemap-ai/tdmrep.json`,
      llms: `${ORIGIN}/api/sitemap-ai/llms.txt`,
      llms_full: `${ORIGIN}/api/sitemap-ai/llms-full.txt`,
    },
    rules,
  };
}

/**
 * An independent reading of RFC 9309 matching for the tests (the module under test has its own):
 * `$` anchors the end, `*` matches any run of characters, otherwise a prefix.
 */
function matches(pattern: string, path: string): boolean {
  const source = pattern
    .split('')
    .map((ch, i) =>
      ch === '*'
        ? '.*'
        : ch === '$' && i === pattern.length - 1
          ? '$'
          : ch.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'),
    )
    .join('');
  return new RegExp(`^${source}`).test(path);
}

function longest<T>(candidates: readonly T[], patternOf: (c: T) => string, path: string) {
  return candidates
    .filter((c) => matches(patternOf(c), path))
    .sort((a, b) => patternOf(b).length - patternOf(a).length)[0];
}

/** The `Content-Usage` / `Content-Signal` lines of the robots.txt group that names `agent`. */
function groupLines(robots: string, agent: string, directive: string): [string, string][] {
  const groups = robots.split(/\n\s*\n/);
  const group = groups.find((g) =>
    g.split('\n').some((line) => line.toLowerCase() === `user-agent: ${agent.toLowerCase()}`),
  );
  if (!group) return [];
  return group
    .split('\n')
    .filter((line) => line.startsWith(`${directive}: `))
    .map((line) => {
      const rest = line.slice(directive.length + 2);
      const space = rest.indexOf(' ');
      return [rest.slice(0, space), rest.slice(space + 1)];
    });
}

function token(dictionary: string, key: string): string {
  const member = parseDictionary(dictionary).get(key);
  if (!member) throw new Error(`${key} missing from ${dictionary}`);
  return String(member[0]);
}

// -------------------------------------------------------------------------------------------
// Random sites: policies over site → type → entry → fragment, as the item builder cascades them.

const usageValue = fc.constantFrom(...USAGE_VALUES);
const partialUsage = fc.record(
  {
    train: usageValue,
    infer: usageValue,
    cache: usageValue,
    redistribute: usageValue,
  },
  { requiredKeys: [] },
);
const override = fc.option(
  fc.record(
    { license: fc.constantFrom(...LICENSES), usage: partialUsage },
    { requiredKeys: [] },
  ) as fc.Arbitrary<MetadataOverride>,
  { nil: undefined },
);
const site = fc.record({
  license: fc.constantFrom(...LICENSES),
  usage: partialUsage,
});
const typeArb = fc.record({
  pattern: fc.constantFrom('/blog/{slug}', '/{slug}', '/docs/guides/{slug}', '/docs/{slug}'),
  license: fc.option(fc.constantFrom(...LICENSES), { nil: undefined }),
  usage: partialUsage,
  entries: fc.array(
    fc.record({ meta: override, fragments: fc.array(override, { maxLength: 3 }) }),
    { maxLength: 6 },
  ),
});
const siteArb = fc.record({
  site,
  types: fc.uniqueArray(typeArb, { minLength: 1, maxLength: 4, selector: (t) => t.pattern }),
});

interface RandomPage extends PagePolicy {
  item: InteropItem;
  fragments: InteropItem[];
}

function pagesOf(generated: SiteValue): RandomPage[] {
  const pages: RandomPage[] = [];
  generated.types.forEach((type, t) => {
    type.entries.forEach((entry, e) => {
      const path = type.pattern.replace('{slug}', `entry-${t}-${e}${e % 3 === 0 ? '*x$' : ''}`);
      const policy = cascadePolicy(
        { license: generated.site.license, usage: generated.site.usage },
        { license: type.license, usage: type.usage },
        entry.meta,
        undefined,
      );
      const base = {
        url: `${ORIGIN}${encodeURI(path)}`,
        lang: 'en',
        modified: `2026-11-${String(10 + e).padStart(2, '0')}T00:00:00.000Z`,
      };
      const item: InteropItem = {
        ...base,
        id: `t${t}:e${e}:en`,
        type: 'article',
        title: `Entry ${t}/${e}`,
        license: policy.license,
        usage: policy.usage,
      };
      const fragments = entry.fragments.map((meta, f) => {
        const p = cascadePolicy(
          { license: generated.site.license, usage: generated.site.usage },
          { license: type.license, usage: type.usage },
          entry.meta,
          meta,
        );
        return {
          ...base,
          url: `${base.url}#part-${f}`,
          id: `${item.id}:part-${f}`,
          type: 'section',
          title: `Part ${f}`,
          license: p.license,
          usage: p.usage,
        } satisfies InteropItem;
      });
      pages.push({
        path: new URL(base.url).pathname,
        usage: strictestUsage([item.usage, ...fragments.map((f) => f.usage)])!,
        license: item.license,
        modified: base.modified,
        item,
        fragments,
      });
    });
  });
  return pages;
}
type SiteValue = typeof siteArb extends fc.Arbitrary<infer V> ? V : never;

function prefixesOf(generated: SiteValue): string[] {
  return generated.types.map((t) => patternPrefix(t.pattern));
}

describe('interop types', () => {
  it('Given the standalone module, When its usage types are compared with the manifest contract, Then they are the same', () => {
    expectTypeOf<Usage>().toEqualTypeOf<ManifestUsage>();
    expectTypeOf<ManifestItem>().toExtend<InteropItem>();
    const kinds: readonly UsageKind[] = USAGE_KINDS;
    expect(Object.values(ROLE_KIND).every((kind) => kinds.includes(kind))).toBe(true);
    expect(Object.values(ROLE_KIND).sort()).toEqual(['infer', 'train']);
  });
});

describe('pathRules and the vocabularies', () => {
  it('Given random policies over site → type → entry → fragment, When every vocabulary is generated, Then each decides every page exactly as its items do', () => {
    fc.assert(
      fc.property(siteArb, (generated) => {
        const pages = pagesOf(generated);
        const rules = pathRules(pages, prefixesOf(generated));
        const doc = documentOf(rules);
        const robots = robotsTxt(doc);
        const parsedRobots = robotsParser(`${ORIGIN}/robots.txt`, robots);
        const rsl = new XMLParser({
          ignoreAttributes: false,
          isArray: (name) => name === 'content',
        }).parse(rslXml(doc)) as {
          rsl: { '@_xmlns': string; content?: Record<string, unknown>[] };
        };
        expect(rsl.rsl['@_xmlns']).toBe('https://rslstandard.org/rsl');
        const contents = rsl.rsl.content ?? [];
        const tdm = tdmrepJson(doc);

        for (const page of pages) {
          // Our own matcher and the path rules.
          const rule = ruleFor(rules, page.path);
          expect(rule?.usage).toEqual(page.usage);
          expect(rule?.license).toBe(page.license);

          // robots.txt, read by robots-parser: each crawler exactly as its role's usage kind says.
          // RFC 9309 §2.2.2: a client percent-encodes reserved characters (`*`, `$`) of the URL
          // before comparing; robots-parser leaves that to its caller.
          const asClient = `${ORIGIN}${page.path.replace(/\*/g, '%2A').replace(/\$/g, '%24')}`;
          for (const crawler of AI_CRAWLERS) {
            const allowed = parsedRobots.isAllowed(asClient, crawler.token);
            expect(allowed, `${crawler.token} at ${page.path}`).toBe(
              permits(page.usage, ROLE_KIND[crawler.role]),
            );
          }
          expect(parsedRobots.isAllowed(asClient, 'SomeSearchEngine')).toBe(true);

          // aipref Content-Usage and Content-Signal lines of a crawler's group (RFC 9651 dictionaries).
          for (const agent of ['GPTBot', 'ChatGPT-User', 'anybody']) {
            const usageLines = groupLines(
              robots,
              agent === 'anybody' ? '*' : agent,
              'Content-Usage',
            );
            const signalLines = groupLines(
              robots,
              agent === 'anybody' ? '*' : agent,
              'Content-Signal',
            );
            const clientPath = new URL(asClient).pathname;
            const u = longest(usageLines, ([p]) => p, clientPath);
            const s = longest(signalLines, ([p]) => p, clientPath);
            expect(u && token(u[1], 'train-ai')).toBe(permits(page.usage, 'train') ? 'y' : 'n');
            expect(s && token(s[1], 'ai-train')).toBe(permits(page.usage, 'train') ? 'yes' : 'no');
            expect(s && token(s[1], 'ai-input')).toBe(permits(page.usage, 'infer') ? 'yes' : 'no');
          }

          // RSL, read by fast-xml-parser: the most specific <content> permits and prohibits as usage says.
          const content = longest(
            contents,
            (c) => String(c['@_url']),
            new URL(asClient).pathname,
          ) as
            | {
                license: {
                  permits?: { '#text': string };
                  prohibits?: { '#text': string };
                  payment: { standard: string };
                };
              }
            | undefined;
          expect(content).toBeDefined();
          const prohibited = String(content!.license.prohibits?.['#text'] ?? '').split(' ');
          const permitted = String(content!.license.permits?.['#text'] ?? '').split(' ');
          expect(prohibited.includes('ai-train')).toBe(!permits(page.usage, 'train'));
          expect(permitted.includes('ai-train')).toBe(permits(page.usage, 'train'));
          expect(prohibited.includes('ai-input')).toBe(!permits(page.usage, 'infer'));
          expect(content!.license.payment.standard).toBe(page.license);

          // TDMRep: the first matching location (most specific first).
          const tdmPath = new URL(asClient).pathname;
          const entry = tdm.find((e) =>
            e.location.endsWith('*')
              ? tdmPath.startsWith(e.location.slice(0, -1))
              : e.location === tdmPath,
          );
          expect(entry?.['tdm-reservation']).toBe(
            permits(page.usage, 'train') && permits(page.usage, 'infer') ? 0 : 1,
          );
        }
      }),
      { numRuns: 150 },
    );
  });

  it('Given one item, When its policy headers are generated, Then Content-Usage and Content-Signal parse as RFC 9651 dictionaries stating its usage', () => {
    fc.assert(
      fc.property(
        fc.record({
          train: usageValue,
          infer: usageValue,
          cache: usageValue,
          redistribute: usageValue,
        }),
        fc.constantFrom(...LICENSES),
        (usage, license) => {
          const headers = policyHeaders({ usage, license }, { rsl: `${ORIGIN}/rsl.xml` });
          expect(token(headers['Content-Usage']!, 'train-ai')).toBe(
            usage.train === 'deny' ? 'n' : 'y',
          );
          expect(token(headers['Content-Signal']!, 'ai-input')).toBe(
            usage.infer === 'deny' ? 'no' : 'yes',
          );
          expect(token(headers['Content-Signal']!, 'search')).toBe('yes');
          const reserved = usage.train === 'deny' || usage.infer === 'deny';
          expect(headers['tdm-reservation']).toBe(reserved ? '1' : '0');
          expect(headers['tdm-policy']).toBe(reserved ? license : undefined);
          expect(headers.Link).toBe(
            `<${ORIGIN}/rsl.xml>; rel="license"; type="application/rsl+xml"`,
          );
        },
      ),
    );
  });
});

describe('pathRules', () => {
  const deny: Usage = {
    train: 'deny',
    infer: 'allow-with-citation',
    cache: 'allow',
    redistribute: 'deny',
  };
  const allow: Usage = { ...deny, train: 'allow' };
  const page = (path: string, usage: Usage): PagePolicy => ({
    path,
    usage,
    license: LICENSES[0]!,
    modified: '2026-11-01T00:00:00.000Z',
  });

  it('Given a type whose pages mostly deny training, When rules are made, Then the prefix denies and only the exception is named', () => {
    const rules = pathRules(
      [page('/blog/a', deny), page('/blog/b', deny), page('/blog/c', allow)],
      ['/blog/'],
    );
    expect(rules.map((r) => [r.pattern, r.usage.train])).toEqual([
      ['/blog/', 'deny'],
      ['/blog/c$', 'allow'],
    ]);
    expect(rules[0]!.lastmod).toBe('2026-11-01T00:00:00.000Z');
  });

  it('Given paths with robots pattern characters, When they are written, Then * and $ are percent-encoded so they match only themselves', () => {
    expect(escapePath('/a*b$c')).toBe('/a%2Ab%24c');
    const rules = pathRules([page('/x/a*b$', allow)], ['/blog/']);
    expect(rules).toEqual([expect.objectContaining({ pattern: '/x/a%2Ab%24$' })]);
  });

  it('Given path patterns, When their static heads are taken, Then the prefix ends at the last slash before a placeholder', () => {
    expect(patternPrefix('/blog/{slug}')).toBe('/blog/');
    expect(patternPrefix('/{locale}/articles/{slug}')).toBe('/');
    expect(patternPrefix('/en/articles/{slug}')).toBe('/en/articles/');
    expect(patternPrefix('/docs/v{version}/{slug}')).toBe('/docs/');
  });

  it('Given nothing published, When robots.txt is made, Then every group still has a rule and the licence and sitemaps are named', () => {
    const robots = robotsTxt(documentOf([]));
    const parsed = robotsParser(`${ORIGIN}/robots.txt`, robots);
    expect(parsed.isAllowed(`${ORIGIN}/anything`, 'GPTBot')).toBe(true);
    expect(robots).toContain(`License: ${ORIGIN}/api/sitemap-ai/rsl.xml`);
    expect(parsed.getSitemaps()).toEqual([
      `${ORIGIN}/api/sitemap-ai/sitemap.xml`,
      `${ORIGIN}/api/sitemap-ai/manifest`,
    ]);
  });

  it('Given a restricted agent list and content paths, When robots.txt is made, Then only those crawlers are named and the content paths close to a role any page denies', () => {
    const rules = pathRules([page('/blog/a', deny)], ['/blog/']);
    const robots = robotsTxt(documentOf(rules), {
      agents: ['GPTBot', 'PerplexityBot'],
      contentPaths: ['/api/sitemap-ai/pages/'],
    });
    const parsed = robotsParser(`${ORIGIN}/robots.txt`, robots);
    expect(robots).not.toContain('User-agent: ClaudeBot');
    // The same groups, structured for a front end's robots generator (Next.js MetadataRoute.Robots).
    const groups = robotsGroups(documentOf(rules), {
      agents: ['GPTBot', 'PerplexityBot'],
      contentPaths: ['/api/sitemap-ai/pages/'],
    });
    expect(groups.map((g) => [g.userAgent, g.allow, g.disallow])).toEqual([
      [['GPTBot'], [], ['/api/sitemap-ai/pages/', '/blog/']],
      [['PerplexityBot'], ['/blog/'], []],
      [['*'], ['/blog/'], []],
    ]);
    expect(parsed.isAllowed(`${ORIGIN}/api/sitemap-ai/pages/x.md`, 'GPTBot')).toBe(false);
    expect(parsed.isAllowed(`${ORIGIN}/api/sitemap-ai/pages/x.md`, 'PerplexityBot')).toBe(true);
  });
});

describe('pageJsonLd', () => {
  const usage: Usage = {
    train: 'deny',
    infer: 'allow-with-citation',
    cache: 'allow',
    redistribute: 'deny',
  };
  const page: InteropItem = {
    id: 'article:a:en',
    url: `${ORIGIN}/blog/a`,
    type: 'article',
    lang: 'en',
    title: 'A',
    license: LICENSES[0]!,
    usage,
    modified: '2026-11-01T00:00:00.000Z',
    schema: ['Dataset'],
    citation: { apa: 'Doe, J. (2026). A.' },
  };

  it('Given a page and its fragments, When JSON-LD is made, Then it states type, licence, credit, usage info and one part per fragment', () => {
    const doc = pageJsonLd(
      page,
      [
        {
          ...page,
          id: 'article:a:en:x',
          url: `${page.url}#x`,
          type: 'section',
          usage: { ...usage, infer: 'deny' },
        },
      ],
      { usageInfo: (id) => `${ORIGIN}/api/sitemap-ai/fragments/${id}` },
    );
    expect(doc).toMatchObject({
      '@context': 'https://schema.org',
      '@type': 'Dataset',
      license: LICENSES[0],
      creditText: 'Doe, J. (2026). A.',
      dateModified: page.modified,
      isAccessibleForFree: true,
      usageInfo: `${ORIGIN}/api/sitemap-ai/fragments/article:a:en`,
      hasPart: [
        {
          '@type': 'WebPageElement',
          url: `${page.url}#x`,
          isAccessibleForFree: false,
        },
      ],
    });
    expect(doc.headline).toBeUndefined();
  });
});

describe('llmsLink', () => {
  it('Given titles with brackets and URLs with parentheses, When a link line is made, Then the Markdown link stays one well-formed link', () => {
    expect(llmsLink('A [draft] title', 'https://e.com/p(1).md', '  two\nlines ')).toBe(
      '- [A draft title](https://e.com/p%281%29.md): two lines',
    );
  });
});

describe('contentUsage and contentSignal', () => {
  it('Given citation-only permissions, When the signals are written, Then citation counts as permitted (no vocabulary states it; RSL and JSON-LD do)', () => {
    const usage: Usage = {
      train: 'allow-with-citation',
      infer: 'allow-with-citation',
      cache: 'deny',
      redistribute: 'deny',
    };
    expect(contentUsage(usage)).toBe('train-ai=y, search=y');
    expect(contentSignal(usage)).toBe('search=yes, ai-input=yes, ai-train=yes');
  });
});
