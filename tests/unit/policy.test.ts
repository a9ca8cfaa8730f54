import { describe, expect, it } from 'vitest';
import { DEFAULT_USAGE, USAGE_KINDS, type UsageValue } from '../../shared/constants';
import {
  mergeEvidence,
  metadataLayer,
  normaliseTopics,
  resolvePolicy,
  type PolicyLayer,
} from '../../server/src/core/policy';

const SITE_LICENSE = 'https://example.com/license#tdm';
const TYPE_LICENSE = 'https://creativecommons.org/licenses/by-nc/4.0/';
const ENTRY_LICENSE = 'https://creativecommons.org/licenses/by/4.0/';
const FIGURE_LICENSE = 'https://photos.example.org/licence/editorial';

const site: PolicyLayer = {
  license: SITE_LICENSE,
  usage: { infer: 'allow', cache: 'allow' },
  chunk: 'by_h2',
  maxTokens: 800,
};
const type: PolicyLayer = {
  license: TYPE_LICENSE,
  usage: { cache: 'deny' },
  chunk: 'by_h3',
  maxTokens: 1200,
  stopSequences: ['\n## '],
};
const entry: PolicyLayer = {
  license: ENTRY_LICENSE,
  usage: { redistribute: 'allow-with-citation' },
};
const fragment: PolicyLayer = { license: FIGURE_LICENSE, usage: { infer: 'deny' } };

describe('resolvePolicy', () => {
  it('Given no layers, When resolved, Then the fallback licence and DEFAULT_USAGE apply, with train denied', () => {
    const policy = resolvePolicy([], SITE_LICENSE);
    expect(policy).toEqual({
      license: SITE_LICENSE,
      usage: { train: 'deny', infer: 'allow-with-citation', cache: 'allow', redistribute: 'deny' },
      embedding_hint: { chunk: 'by_h2', max_tokens: 800 },
    });
  });

  it('Given site → type → entry → fragment, When resolved, Then the most specific licence wins at every depth', () => {
    expect(resolvePolicy([site], 'urn:fallback').license).toBe(SITE_LICENSE);
    expect(resolvePolicy([site, type], 'urn:fallback').license).toBe(TYPE_LICENSE);
    expect(resolvePolicy([site, type, entry], 'urn:fallback').license).toBe(ENTRY_LICENSE);
    expect(resolvePolicy([site, type, entry, fragment], 'urn:fallback').license).toBe(
      FIGURE_LICENSE,
    );
  });

  it('Given the four layers, When resolved, Then each usage kind comes from the most specific layer that sets it', () => {
    expect(resolvePolicy([site, type, entry, fragment], SITE_LICENSE).usage).toEqual({
      train: 'deny', // nobody allowed it: deny by default
      infer: 'deny', // fragment
      cache: 'deny', // content type
      redistribute: 'allow-with-citation', // entry
    });
  });

  it.each(USAGE_KINDS.map((kind) => [kind]))(
    'Given only the fragment sets %s, When resolved, Then it overrides site, type and entry',
    (kind) => {
      const value: UsageValue = DEFAULT_USAGE[kind] === 'allow' ? 'deny' : 'allow';
      const layers: PolicyLayer[] = [
        { usage: { [kind]: 'allow-with-citation' } },
        { usage: { [kind]: 'allow-with-citation' } },
        { usage: { [kind]: 'allow-with-citation' } },
        { usage: { [kind]: value } },
      ];
      const usage = resolvePolicy(layers, SITE_LICENSE).usage;
      expect(usage[kind]).toBe(value);
      for (const other of USAGE_KINDS.filter((k) => k !== kind))
        expect(usage[other]).toBe(DEFAULT_USAGE[other]);
    },
  );

  it('Given the site allows train and an entry revokes it, When resolved, Then train is denied for that entry only', () => {
    const allowing: PolicyLayer = { usage: { train: 'allow' } };
    expect(resolvePolicy([allowing, undefined], SITE_LICENSE).usage.train).toBe('allow');
    expect(
      resolvePolicy([allowing, undefined, { usage: { train: 'deny' } }], SITE_LICENSE).usage.train,
    ).toBe('deny');
  });

  it('Given undefined layers and layers with empty values, When resolved, Then they change nothing', () => {
    const policy = resolvePolicy(
      [site, undefined, { license: '', usage: {} }, undefined],
      'urn:fallback',
    );
    expect(policy.license).toBe(SITE_LICENSE);
    expect(policy.usage).toEqual({ ...DEFAULT_USAGE, infer: 'allow' });
  });

  it('Given embedding hints on site and type, When resolved, Then chunk, max_tokens and stop_sequences cascade', () => {
    expect(resolvePolicy([site, type, entry, fragment], SITE_LICENSE).embedding_hint).toEqual({
      chunk: 'by_h3',
      max_tokens: 1200,
      stop_sequences: ['\n## '],
    });
    expect(resolvePolicy([site], SITE_LICENSE).embedding_hint).toEqual({
      chunk: 'by_h2',
      max_tokens: 800,
    });
    expect(resolvePolicy([{ stopSequences: [] }], SITE_LICENSE).embedding_hint).not.toHaveProperty(
      'stop_sequences',
    );
  });

  it('Given a layer object, When resolved, Then the result does not share its arrays or the default usage object', () => {
    const policy = resolvePolicy([type], SITE_LICENSE);
    policy.embedding_hint.stop_sequences!.push('mutated');
    policy.usage.train = 'allow';
    expect(type.stopSequences).toEqual(['\n## ']);
    expect(DEFAULT_USAGE.train).toBe('deny');
    expect(resolvePolicy([], SITE_LICENSE).usage.train).toBe('deny');
  });
});

describe('metadataLayer', () => {
  it('Given editor metadata, When turned into a layer, Then only licence and usage cascade', () => {
    expect(
      metadataLayer({
        license: ENTRY_LICENSE,
        usage: { train: 'allow' },
        topics: ['GEO'],
        stability_pin: 0.9,
      }),
    ).toEqual({ license: ENTRY_LICENSE, usage: { train: 'allow' } });
    expect(metadataLayer(undefined)).toBeUndefined();
  });
});

describe('mergeEvidence', () => {
  it('Given overlapping lists, When merged, Then URLs are unique and the first (most specific) occurrence wins', () => {
    const fragmentEvidence = [
      { rel: 'dataset', url: 'https://data.europa.eu/88u/dataset/crawl-2025', title: 'Crawl 2025' },
    ];
    const entryEvidence = [
      { rel: 'source', url: 'https://data.europa.eu/88u/dataset/crawl-2025' },
      {
        rel: 'standard',
        url: 'https://www.sitemaps.org/protocol.html',
        title: 'Sitemaps protocol',
      },
    ];
    const linked = [
      { rel: 'cites', url: 'https://www.sitemaps.org/protocol.html' },
      { rel: 'cites', url: 'https://www.w3.org/TR/webarch/' },
    ];
    expect(mergeEvidence(fragmentEvidence, undefined, entryEvidence, linked)).toEqual([
      { rel: 'dataset', url: 'https://data.europa.eu/88u/dataset/crawl-2025', title: 'Crawl 2025' },
      {
        rel: 'standard',
        url: 'https://www.sitemaps.org/protocol.html',
        title: 'Sitemaps protocol',
      },
      { rel: 'cites', url: 'https://www.w3.org/TR/webarch/' },
    ]);
  });

  it('Given evidence links, When merged, Then the returned links are copies', () => {
    const link = { rel: 'standard', url: 'https://www.rfc-editor.org/rfc/rfc9309' };
    const [merged] = mergeEvidence([link]);
    merged!.rel = 'changed';
    expect(link.rel).toBe('standard');
  });

  it('Given nothing, When merged, Then the result is empty', () => {
    expect(mergeEvidence(undefined, [])).toEqual([]);
  });
});

describe('normaliseTopics', () => {
  it('Given topics from fragment and entry, When normalised, Then they are trimmed, single-spaced and deduplicated case-insensitively', () => {
    expect(
      normaliseTopics(
        ['  GEO ', 'large   language\tmodels'],
        ['geo', 'LLM', 'Large language models', '', '   ', 'sitemaps'],
      ),
    ).toEqual(['GEO', 'large language models', 'LLM', 'sitemaps']);
  });

  it('Given Slovak topics differing only in case, When normalised, Then the first spelling is kept', () => {
    expect(normaliseTopics(['Umelá inteligencia'], ['UMELÁ INTELIGENCIA', 'vyhľadávanie'])).toEqual(
      ['Umelá inteligencia', 'vyhľadávanie'],
    );
  });

  it('Given no lists, When normalised, Then the result is empty', () => {
    expect(normaliseTopics(undefined, undefined)).toEqual([]);
  });
});
