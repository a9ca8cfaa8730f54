import { repositories } from '../repositories';
import type { Core } from '@strapi/strapi';
import { Readable } from 'node:stream';
import { SitemapIndexStream, SitemapStream } from 'sitemap';
import { DEFAULT_USAGE, SPEC_VERSION } from '../../../shared/constants';
import { DocumentNotFoundError, ItemNotFoundError } from '../core/errors';
import {
  AIPREF_ATTACH_DRAFT,
  AIPREF_VOCAB_DRAFT,
  llmsLink,
  pageJsonLd,
  pathRules,
  patternPrefix,
  permits,
  policyHeaders,
  robotsTxt,
  rslXml,
  strictestUsage,
  tdmrepJson,
  usageLine,
  type PathRule,
  type PolicyDocument,
} from '../core/interop';
import { servedItem } from '../core/items';
import { sitemapPartStarts, sitemapUrlBytes } from '../core/sitemap';
import type { ManifestItem, Usage } from '../core/types';
import type { DiscoveryConfig } from '../core/config';
import type { PolicyRow } from '../repositories/item-repository';
import type { SnapshotRecord } from '../repositories/snapshot-repository';
import { getService } from '../utils/get-service';
import { turnEventLoop } from '../utils/event-loop';
import { sha256Hex } from '../core/canonical';

/** Items read per query while the discovery index is folded together. */
const SCAN_BATCH = 1000;
/**
 * Changed versions read before the discovery index of a new snapshot is made from the previous
 * one's instead of from every item (at least this many; otherwise as many as there are pages).
 */
const FOLD_CHANGES_MIN = 1000;
/** Pages written per query into llms-full.txt. */
const CONTENT_BATCH = 100;

/** One published page, as the discovery documents list it. */
export interface DiscoveryPage {
  id: string;
  url: string;
  path: string;
  title: string;
  lang: string;
  sourceUid: string;
  modified: string;
  license: string;
  /** The page item's own usage (what its Markdown copy and JSON-LD state). */
  usage: Usage;
  /** The strictest usage of the page and its fragments: what a crawler of its URL may do. */
  pathUsage: Usage;
  altOf?: string;
  topics?: string[];
}

/**
 * The pages of a snapshot, each with its own usage, and the strictest usage of each page's
 * fragments by page id: what the discovery index is made from (indexOf).
 */
interface PolicyFold {
  pages: Map<string, DiscoveryPage>;
  childUsages: Map<string, Usage>;
}

interface SitemapLayout {
  ordered: DiscoveryPage[];
  groups: Map<string, { lang: string; url: string }[]>;
  /** Index in `ordered` where each sitemap file starts; one entry: a single file. */
  starts: number[];
}

export interface DiscoveryIndex {
  snapshot: SnapshotRecord;
  pages: DiscoveryPage[];
  document: PolicyDocument;
  /** The strictest usage of everything published: the policy of responses that carry many pages. */
  overall: { usage: Usage; license: string };
  /** The strictest usage of the pages open to inference: the policy of llms.txt and llms-full.txt. */
  inferable: { usage: Usage; license: string };
  fingerprint: string;
}

/**
 * The discovery documents (docs/protocol.md §9): robots.txt block, llms.txt, llms-full.txt,
 * RSL, TDMRep, sitemap.xml, JSON-LD and the policy headers, all read from the current snapshot
 * so they can never disagree with the manifest. The per-page policy is folded once per snapshot.
 */
export const createDiscoveryService = ({ strapi }: { strapi: Core.Strapi }) => {
  const items = repositories(strapi).items;
  const settings = () => getService(strapi, 'config');
  const snapshots = repositories(strapi).snapshots;
  let cached: {
    configKey: string;
    snapshot: SnapshotRecord;
    fold: Promise<PolicyFold>;
    index: Promise<DiscoveryIndex>;
  } | null = null;

  const apiBase = (): string => settings().publicApiUrl();

  /**
   * One frozen object per distinct usage and one string per distinct licence, type and language,
   * shared by the folds and indexes of every snapshot: each page held its own copies, read from
   * its item's data (a 10k site's fold and index kept 9.5 MB of heap, about ten times that at 100k,
   * for a handful of distinct values). Forgotten whole if a site ever has more than SHARED_MAX.
   */
  const sharedUsages = new Map<string, Usage>();
  const sharedStrings = new Map<string, string>();
  const SHARED_MAX = 10_000;
  function sharedUsage(usage: Usage): Usage {
    const key = JSON.stringify(usage);
    let shared = sharedUsages.get(key);
    if (shared === undefined) {
      if (sharedUsages.size >= SHARED_MAX) sharedUsages.clear();
      shared = Object.freeze({ ...usage });
      sharedUsages.set(key, shared);
    }
    return shared;
  }
  function sharedString(value: string): string {
    let shared = sharedStrings.get(value);
    if (shared === undefined) {
      if (sharedStrings.size >= SHARED_MAX) sharedStrings.clear();
      shared = value;
      sharedStrings.set(value, shared);
    }
    return shared;
  }

  function urls(): PolicyDocument['urls'] & { policy: string } {
    const base = apiBase();
    return {
      manifest: `${base}/manifest`,
      sitemap: `${base}/sitemap.xml`,
      rsl: `${base}/rsl.xml`,
      tdmrep: `${base}/tdmrep.json`,
      llms: `${base}/llms.txt`,
      llms_full: `${base}/llms-full.txt`,
      policy: `${base}/policy.json`,
    };
  }

  const pageUrl = (id: string) => `${apiBase()}/pages/${id}.md`;
  const usageInfo = (id: string) => `${apiBase()}/fragments/${id}`;

  function pathOf(url: string): string {
    try {
      return new URL(url).pathname || '/';
    } catch {
      return url.startsWith('/') ? url : `/${url}`;
    }
  }

  /** Adds one version, as policyPage reads it, to a fold of pages and their fragments' usages. */
  function foldRow(fold: PolicyFold, row: PolicyRow): void {
    if ('data' in row) {
      const data = row.data;
      const usage = sharedUsage(data.usage);
      fold.pages.set(row.itemId, {
        id: row.itemId,
        url: data.url,
        path: pathOf(data.url),
        title: data.title ?? row.itemId,
        lang: sharedString(data.lang),
        sourceUid: sharedString(row.sourceUid),
        modified: data.modified,
        license: sharedString(data.license),
        usage,
        pathUsage: usage,
        ...(data.alt_of ? { altOf: data.alt_of } : {}),
        ...(data.topics && data.topics.length > 0 ? { topics: data.topics } : {}),
      });
    } else if (row.parent) {
      const folded = fold.childUsages.get(row.parent);
      fold.childUsages.set(
        row.parent,
        sharedUsage(folded ? strictestUsage([folded, row.usage!])! : row.usage!),
      );
    }
  }

  /** Every page of snapshot S and the strictest usage of each one's fragments, read whole. */
  async function foldSnapshot(snapshot: SnapshotRecord): Promise<PolicyFold> {
    const fold: PolicyFold = { pages: new Map(), childUsages: new Map() };
    let after = '';
    for (;;) {
      const rows = await items.policyPage(snapshot.seq, after, SCAN_BATCH);
      for (const row of rows.slice(0, SCAN_BATCH)) foldRow(fold, row);
      if (rows.length <= SCAN_BATCH) break;
      after = rows[SCAN_BATCH - 1]!.itemId;
      await turnEventLoop();
    }
    return fold;
  }

  /**
   * The fold of snapshot `to` made from the fold of an earlier snapshot `from`: only the pages
   * whose item or fragments changed in between are read again (a build that changed ten
   * articles of a 10k site read every item of the site again, ~6 s, on the first request for any
   * discovery document after it). Null when that cannot be told from the versions stored — `from`
   * is gone or was built again, the versions closed since may have been collected — or when so
   * much changed that reading the snapshot whole is as quick.
   */
  async function foldChanges(
    previous: PolicyFold,
    from: SnapshotRecord,
    to: SnapshotRecord,
  ): Promise<PolicyFold | null> {
    const stillFrom = async () => {
      const [kept, oldest] = await Promise.all([snapshots.find(from.seq), snapshots.oldest()]);
      return kept?.builtAt === from.builtAt && oldest !== null && oldest.seq <= from.seq;
    };
    if (from.seq >= to.seq || !(await stillFrom())) return null;
    const changed = await items.pagesChangedBetween(
      from.seq,
      to.seq,
      Math.max(FOLD_CHANGES_MIN, previous.pages.size),
    );
    // (checked again after the read: a collection meanwhile may have taken versions it needed)
    if (changed === null || !(await stillFrom())) return null;
    const fold: PolicyFold = {
      pages: new Map(previous.pages),
      childUsages: new Map(previous.childUsages),
    };
    for (const id of changed) {
      fold.pages.delete(id);
      fold.childUsages.delete(id);
    }
    for (const row of await items.policyOfPages(to.seq, changed)) foldRow(fold, row);
    return fold;
  }

  /** The discovery index of snapshot S from its fold: the policy of every page and path. */
  function indexOf(snapshot: SnapshotRecord, fold: PolicyFold): DiscoveryIndex {
    const config = settings().config();
    // In id order, whichever way the fold was read (the database's order is its collation's).
    const list = [...fold.pages.values()]
      .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
      .map((page) => {
        const children = fold.childUsages.get(page.id);
        return children
          ? { ...page, pathUsage: sharedUsage(strictestUsage([page.usage, children])!) }
          : page;
      });
    // A type's prefix is the static head of its path pattern, with `{locale}` filled in for every
    // locale the type publishes (`/{locale}/articles/{slug}` → `/en/articles/`, `/sk/articles/`).
    const localesOf = new Map<string, Set<string>>();
    for (const page of list) {
      const set = localesOf.get(page.sourceUid) ?? new Set<string>();
      set.add(page.lang);
      localesOf.set(page.sourceUid, set);
    }
    const prefixes: string[] = [];
    for (const [uid, type] of Object.entries(config.contentTypes)) {
      if (!type.enabled) continue;
      const locales = new Set([...(localesOf.get(uid) ?? []), config.defaultLocale ?? 'en']);
      for (const locale of locales)
        prefixes.push(
          patternPrefix(type.pathPattern.replace(/\{locale\}/g, encodeURIComponent(locale))),
        );
    }
    const rules: PathRule[] = pathRules(
      list.map((p) => ({
        path: p.path,
        usage: p.pathUsage,
        license: p.license,
        modified: p.modified,
      })),
      prefixes,
    );
    const site = settings().site('en');
    const document: PolicyDocument = {
      spec: SPEC_VERSION,
      site: { url: site.siteUrl, name: site.siteName },
      snapshot: { id: String(snapshot.seq), created_at: snapshot.builtAt },
      vocabularies: {
        aipref: AIPREF_VOCAB_DRAFT,
        aipref_attach: AIPREF_ATTACH_DRAFT,
        rsl: '1.0',
        tdmrep: '1.0',
      },
      urls: urls(),
      rules,
    };
    // With nothing published, the site's defaults speak for it.
    const siteUsage: Usage = { ...DEFAULT_USAGE, ...site.defaults.usage };
    const inferable = list.filter((p) => permits(p.usage, 'infer'));
    return {
      snapshot,
      pages: list,
      document,
      overall: {
        usage: strictestUsage(list.map((p) => p.pathUsage)) ?? siteUsage,
        license: site.defaults.license,
      },
      inferable: {
        usage: strictestUsage(inferable.map((p) => p.usage)) ?? siteUsage,
        license: site.defaults.license,
      },
      fingerprint: sha256Hex(JSON.stringify(document)).slice(0, 20),
    };
  }

  /**
   * The discovery index of the current snapshot, made once per snapshot and configuration; from
   * the fold of the snapshot this instance indexed before when it can (foldChanges).
   */
  async function index(): Promise<DiscoveryIndex> {
    const snapshot = await getService(strapi, 'manifest').current();
    const config = settings().config();
    const configKey = sha256Hex(
      JSON.stringify([config.siteUrl, config.siteName, config.apiUrl, config.contentTypes]),
    );
    const same = (record: SnapshotRecord) =>
      record.seq === snapshot.seq && record.builtAt === snapshot.builtAt;
    if (cached?.configKey === configKey && same(cached.snapshot)) return cached.index;
    const previous = cached?.configKey === configKey ? cached : null;
    const fold = (async () => {
      const before = previous ? await previous.fold.catch(() => null) : null;
      const changed = before && (await foldChanges(before, previous!.snapshot, snapshot));
      return changed ?? foldSnapshot(snapshot);
    })();
    const promise = fold.then((made) => indexOf(snapshot, made));
    const entry = { configKey, snapshot, fold, index: promise };
    cached = entry;
    promise.catch(() => {
      if (cached === entry) cached = null;
    });
    return promise;
  }

  /** Pages an assistant may use for inference, in llms.txt order: by type, then locale, then id. */
  function inferable(idx: DiscoveryIndex): DiscoveryPage[] {
    return idx.pages
      .filter((p) => permits(p.usage, 'infer'))
      .sort((a, b) =>
        a.sourceUid !== b.sourceUid
          ? a.sourceUid < b.sourceUid
            ? -1
            : 1
          : a.lang !== b.lang
            ? a.lang < b.lang
              ? -1
              : 1
            : a.id < b.id
              ? -1
              : 1,
      );
  }

  function typeName(uid: string): string {
    return settings().schemas.displayName(uid);
  }

  /** Pages in id order, translation groups and where each sitemap file starts (once per index). */
  const layouts = new WeakMap<DiscoveryIndex, { perFile: number; layout: SitemapLayout }>();
  function sitemapLayout(idx: DiscoveryIndex, perFile: number): SitemapLayout {
    const known = layouts.get(idx);
    if (known?.perFile === perFile) return known.layout;
    const ordered = [...idx.pages].sort((a, b) => (a.id < b.id ? -1 : 1));
    const groups = new Map<string, { lang: string; url: string }[]>();
    for (const page of ordered) {
      const key = page.altOf ?? page.id;
      const list = groups.get(key) ?? [];
      list.push({ lang: page.lang, url: page.url });
      groups.set(key, list);
    }
    const sizes = ordered.map((page) => {
      const group = groups.get(page.altOf ?? page.id) ?? [];
      return sitemapUrlBytes(page.url, group.length > 1 ? group.map((g) => g.url) : []);
    });
    const layout = { ordered, groups, starts: sitemapPartStarts(sizes, perFile) };
    layouts.set(idx, { perFile, layout });
    return layout;
  }

  const service = {
    index,
    urls,

    /** Headers for a response about one policy (an item), or about many (the strictest of them). */
    headers(policy: { usage: Usage; license: string }): Record<string, string> {
      return policyHeaders(policy, urls());
    },

    async policyDocument(): Promise<{ index: DiscoveryIndex; body: PolicyDocument }> {
      const idx = await index();
      return { index: idx, body: idx.document };
    },

    /** `discovery` overrides the configured discovery settings (the Settings preview). */
    async robots(discovery?: DiscoveryConfig): Promise<{ index: DiscoveryIndex; body: string }> {
      const idx = await index();
      const config = discovery ?? settings().config().discovery;
      const api = new URL(apiBase()).pathname.replace(/\/+$/, '');
      const body = robotsTxt(idx.document, {
        agents: config.agents,
        contentPaths: [
          `${api}/fragments/`,
          `${api}/pages/`,
          `${api}/llms-full.txt`,
          ...(config.serveAtRoot ? ['/llms-full.txt'] : []),
        ],
      });
      return { index: idx, body };
    },

    async rsl(): Promise<{ index: DiscoveryIndex; body: string }> {
      const idx = await index();
      return { index: idx, body: rslXml(idx.document) };
    },

    async tdmrep(): Promise<{ index: DiscoveryIndex; body: unknown }> {
      const idx = await index();
      return { index: idx, body: tdmrepJson(idx.document) };
    },

    /** llms.txt: H1, summary, prose, then a link list per content type and locale. */
    async llms(discovery?: DiscoveryConfig): Promise<{ index: DiscoveryIndex; body: string }> {
      const idx = await index();
      const config = { discovery: discovery ?? settings().config().discovery };
      const site = settings().site('en');
      const title = config.discovery.title ?? site.siteName;
      const summary =
        config.discovery.summary ??
        `Pages of ${site.siteName} as clean Markdown, with the licence and usage rules of each.`;
      const u = urls();
      const lines = [
        `# ${title.replace(/\s+/g, ' ')}`,
        '',
        `> ${summary.replace(/\s+/g, ' ')}`,
        '',
      ];
      if (config.discovery.details) lines.push(config.discovery.details, '');
      lines.push(
        `Each link is the page's canonical Markdown. Default licence: ${site.defaults.license}. ` +
          `Usage per page and per fragment is in the AI manifest (${u.manifest}); ` +
          `the same policy as RSL (${u.rsl}) and in robots.txt form (${apiBase()}/robots.txt). ` +
          `Only pages open to inference are listed.`,
        '',
      );
      const optional = new Set(config.discovery.optionalTypes);
      const pages = inferable(idx);
      const sections = new Map<string, DiscoveryPage[]>();
      for (const page of pages) {
        const key = optional.has(page.sourceUid)
          ? '\u0000optional'
          : `${page.sourceUid}\u0000${page.lang}`;
        const list = sections.get(key);
        if (list) list.push(page);
        else sections.set(key, [page]);
      }
      const langsOf = new Map<string, Set<string>>();
      for (const page of pages) {
        const set = langsOf.get(page.sourceUid) ?? new Set<string>();
        set.add(page.lang);
        langsOf.set(page.sourceUid, set);
      }
      const link = (p: DiscoveryPage) =>
        llmsLink(p.title, pageUrl(p.id), p.topics ? `topics: ${p.topics.join(', ')}` : undefined);
      for (const [key, list] of sections) {
        if (key === '\u0000optional') continue;
        const [uid, lang] = key.split('\u0000') as [string, string];
        const many = (langsOf.get(uid)?.size ?? 0) > 1;
        lines.push(`## ${typeName(uid)}${many ? ` (${lang})` : ''}`, '', ...list.map(link), '');
      }
      const optionalPages = sections.get('\u0000optional');
      if (optionalPages) lines.push('## Optional', '', ...optionalPages.map(link), '');
      return { index: idx, body: `${lines.join('\n').trimEnd()}\n` };
    },

    /**
     * llms-full.txt: the canonical Markdown of every page open to inference, each under a short
     * header (URL, licence, usage, preferred citation, checksum); read from the database in
     * batches and streamed, so no more than one batch of pages is in memory.
     */
    async llmsFull(): Promise<{ index: DiscoveryIndex; stream: Readable }> {
      const idx = await index();
      const snapshot = idx.snapshot;
      const site = settings().site('en');
      const title = settings().config().discovery.title ?? site.siteName;
      async function* generate(): AsyncGenerator<string> {
        yield `# ${title.replace(/\s+/g, ' ')}\n\n`;
        let after = '';
        for (;;) {
          const rows = await items.pageContents(snapshot.seq, after, CONTENT_BATCH);
          for (const row of rows.slice(0, CONTENT_BATCH)) {
            const item = row.data;
            if (!permits(item.usage, 'infer')) continue;
            const served = servedItem(
              item,
              row.history,
              row.stabilityPin,
              new Date(snapshot.builtAt),
            );
            const header = [
              `## ${(item.title ?? row.itemId).replace(/\s+/g, ' ')}`,
              '',
              `- URL: ${item.url}`,
              `- Markdown: ${pageUrl(row.itemId)}`,
              `- Licence: ${item.license}`,
              `- Usage: ${usageLine(item.usage)}`,
              ...(served.citation ? [`- Cite as: ${served.citation.apa}`] : []),
              `- Checksum: ${row.checksum}`,
              '',
            ];
            yield `${header.join('\n')}\n${row.content.trimEnd()}\n\n---\n\n`;
          }
          if (rows.length <= CONTENT_BATCH) break;
          after = rows[CONTENT_BATCH - 1]!.itemId;
        }
      }
      return { index: idx, stream: Readable.from(generate()) };
    },

    /**
     * sitemap.xml (sitemaps.org): every published page with `lastmod`, translations linked with
     * `xhtml:link rel="alternate" hreflang`; when the pages need more than one file (more than
     * `sitemapUrlsPerFile` URLs, or more than 50 MB), a sitemap index of numbered parts.
     * `part` 0 is the top-level file.
     */
    async sitemap(part: number): Promise<{ index: DiscoveryIndex; stream: Readable }> {
      const idx = await index();
      const layout = sitemapLayout(idx, settings().config().discovery.sitemapUrlsPerFile);
      const parts = layout.starts.length;
      if (part === 0 && parts > 1) {
        const stream = new SitemapIndexStream();
        const lastmod = idx.snapshot.builtAt;
        (async () => {
          for (let i = 1; i <= parts; i += 1)
            stream.write({ url: `${apiBase()}/sitemap-${i}.xml`, lastmod });
          stream.end();
        })().catch((error) => stream.destroy(error));
        return { index: idx, stream };
      }
      if (part > parts || (part > 0 && parts === 1))
        throw new DocumentNotFoundError(`sitemap-${part}.xml`);
      const from = part === 0 ? 0 : layout.starts[part - 1]!;
      const to =
        part === 0 ? layout.ordered.length : (layout.starts[part] ?? layout.ordered.length);
      const stream = new SitemapStream({
        xmlns: { news: false, video: false, image: false, xhtml: true },
      });
      (async () => {
        for (const page of layout.ordered.slice(from, to)) {
          const group = layout.groups.get(page.altOf ?? page.id) ?? [];
          const ok = stream.write({
            url: page.url,
            lastmod: page.modified,
            ...(group.length > 1
              ? { links: group.map((g) => ({ lang: g.lang, url: g.url })) }
              : {}),
          });
          if (!ok) await new Promise((resolve) => stream.once('drain', resolve));
        }
        stream.end();
      })().catch((error) => stream.destroy(error));
      return { index: idx, stream };
    },

    /** The clean Markdown copy of one page (only page items have one). */
    async pageMarkdown(id: string): Promise<{
      snapshot: SnapshotRecord;
      item: ManifestItem;
      checksum: string;
      content: string;
    }> {
      const manifest = getService(strapi, 'manifest');
      const { snapshot, item, aliasOf } = await manifest.item(id);
      if (item.type !== 'article' || aliasOf) throw new ItemNotFoundError(id);
      const { checksum, content } = await manifest.content(id);
      return { snapshot, item, checksum, content };
    },

    /** schema.org JSON-LD of one page and its fragments, as the manifest states them. */
    async pageJsonLd(
      id: string,
    ): Promise<{ snapshot: SnapshotRecord; item: ManifestItem; body: Record<string, unknown> }> {
      const manifest = getService(strapi, 'manifest');
      const { snapshot, item, aliasOf } = await manifest.item(id);
      if (item.type !== 'article' || aliasOf) throw new ItemNotFoundError(id);
      const when = new Date(snapshot.builtAt);
      const children = (await items.childrenOf(snapshot.seq, id)).map((row) =>
        servedItem(row.data, row.history, row.stabilityPin, when),
      );
      return { snapshot, item, body: pageJsonLd(item, children, { usageInfo }) };
    },
  };
  return service;
};

export type DiscoveryService = ReturnType<typeof createDiscoveryService>;
