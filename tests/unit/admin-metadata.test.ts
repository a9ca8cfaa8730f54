import { describe, expect, it } from 'vitest';
import {
  cleanEntryMetadata,
  cleanOverride,
  errorAt,
  errorsBelow,
  flattenFormErrors,
  isRecordedReason,
  readEntryMetadata,
  splitTags,
  tagProblem,
  validateOverride,
} from '../../admin/src/utils/metadata';
import { USAGE_KINDS, USAGE_VALUES } from '../../shared/constants';
import {
  METADATA_LIST_MAX as MAX_TAGS,
  TOPIC_MAX_LENGTH as MAX_TOPIC_LENGTH,
  isEntityId,
  isEvidenceRel,
  metadataOverrideSchema,
} from '../../shared/metadata-schema';
import { isAbsoluteUri, isHttpUrl } from '../../shared/urls';
import type { EntryMetadata, MetadataOverride } from '../../shared/contracts/admin';

/*
 * The editors' side panel validates and cleans the entry's `sitemapAi` value
 * before it is saved (admin/src/utils/metadata.ts), with the schema the server
 * reads the attribute with (shared/metadata-schema.ts).
 */

const DSM_DIRECTIVE = {
  rel: 'standard',
  url: 'https://eur-lex.europa.eu/eli/dir/2019/790/oj',
  title: 'Directive (EU) 2019/790',
};
const TDMREP = {
  rel: 'source',
  url: 'https://www.w3.org/community/reports/tdmrep/CG-FINAL-tdmrep-20240510/',
};

/** A complete, valid override as an editor fills it in for an article about TDM licensing. */
const complete = (): MetadataOverride => ({
  license: 'https://creativecommons.org/licenses/by/4.0/',
  usage: { train: 'deny', infer: 'allow-with-citation' },
  evidence: [DSM_DIRECTIVE, TDMREP],
  topics: ['TDM', 'licensing', 'copyright'],
  entity_ids: ['Q11660', 'wd:Q2539'],
  stability_pin: 0.8,
  citation: { apa: 'Novák, J. (2025). Licensing content for text and data mining. Example Press.' },
});

describe('validateOverride: the rules the panel shows next to the fields', () => {
  it('Given a complete override an editor filled in correctly, When it is validated, Then there is no problem', () => {
    expect(validateOverride(complete())).toEqual({});
  });

  it('Given an empty override (everything inherited), When it is validated, Then there is no problem', () => {
    expect(validateOverride({})).toEqual({});
  });

  it.each([
    ['a licence URN', 'urn:tdmrep:reserved'],
    ['an ftp licence page', 'ftp://example.com/licence.txt'],
    ['a relative path', '/license#tdm'],
    ['a bare host name', 'creativecommons.org/licenses/by/4.0/'],
    ['a javascript: URL', 'javascript:alert(1)'],
    ['an empty value', ''],
  ])(
    'Given %s as the entry licence, When it is validated, Then the licence must be an http(s) URL',
    (_name, license) => {
      expect(validateOverride({ license })).toEqual({ license: 'validation.licenseUrl' });
    },
  );

  it.each(['http://example.com/license#tdm', 'https://creativecommons.org/licenses/by-nc/4.0/'])(
    'Given the http(s) licence page %s, When it is validated, Then it is accepted',
    (license) => {
      expect(validateOverride({ license })).toEqual({});
    },
  );

  it('Given evidence rows with a bad relation and a bad URL, When they are validated, Then each problem is keyed by its row and field', () => {
    const problems = validateOverride({
      evidence: [
        DSM_DIRECTIVE,
        { rel: 'Primary Source', url: 'https://doi.org/10.1000/182' },
        { rel: 'dataset', url: 'doi:10.5281/zenodo.1234' },
      ],
    });
    expect(problems).toEqual({
      'evidence.1.rel': 'validation.evidenceRel',
      'evidence.2.url': 'validation.evidenceUrl',
    });
  });

  it('Given a half-filled evidence row (a relation, no URL yet), When it is validated, Then only the missing URL is reported', () => {
    expect(validateOverride({ evidence: [{ rel: 'source', url: '' }] })).toEqual({
      'evidence.0.url': 'validation.evidenceUrl',
    });
  });

  it.each([
    ['source', true],
    ['see-also', true],
    ['a'.repeat(40), true],
    ['a'.repeat(41), false],
    ['Standard', false],
    ['1st-source', false],
    ['has space', false],
    ['', false],
  ])('Given the evidence relation %j, When it is checked, Then it is valid: %s', (rel, valid) => {
    expect(isEvidenceRel(rel)).toBe(valid);
  });

  it.each([0, 0.35, 1])(
    'Given the stability pin %s, When it is validated, Then it is accepted',
    (stability_pin) => {
      expect(validateOverride({ stability_pin })).toEqual({});
    },
  );

  it.each([-0.1, 1.01, 80, Number.NaN, Number.POSITIVE_INFINITY])(
    'Given the stability pin %s (outside 0..1), When it is validated, Then it is reported',
    (stability_pin) => {
      expect(validateOverride({ stability_pin })).toEqual({
        stability_pin: 'validation.stability',
      });
    },
  );

  it.each([
    ['Q2013', true],
    ['Q11660', true],
    ['wd:Q2013', true],
    ['gnd:4002214-6', true],
    ['Q0', false],
    ['Q012', false],
    ['q2013', false],
    ['2013', false],
    ['wd: Q2013', false],
    ['', false],
  ])(
    'Given the entity id %j, When it is checked, Then it is a QID or a prefixed id: %s',
    (id, valid) => {
      expect(isEntityId(id)).toBe(valid);
    },
  );

  it('Given one malformed QID among valid ones, When the override is validated, Then the list is reported once', () => {
    expect(validateOverride({ entity_ids: ['Q11660', 'Q-42', 'wd:Q2539'] })).toEqual({
      entity_ids: 'validation.entityId',
    });
  });

  it.each([
    ['an empty topic', ''],
    ['a blank topic', '   '],
    ['a topic one character too long', 'x'.repeat(MAX_TOPIC_LENGTH + 1)],
  ])('Given %s, When the topics are validated, Then the list is reported', (_name, topic) => {
    expect(validateOverride({ topics: ['licensing', topic] })).toEqual({
      topics: 'validation.topic',
    });
  });

  it('Given a topic of exactly the maximum length, When the topics are validated, Then it is accepted', () => {
    expect(MAX_TOPIC_LENGTH).toBe(120);
    expect(validateOverride({ topics: ['x'.repeat(MAX_TOPIC_LENGTH)] })).toEqual({});
  });

  it('Given a stored topic with surrounding spaces, When it is validated, Then its length counts without them, as on the server', () => {
    expect(validateOverride({ topics: [` ${'x'.repeat(MAX_TOPIC_LENGTH)} `] })).toEqual({});
  });

  it('Given more topics or entity ids than the server keeps, When they are validated, Then the list is too long', () => {
    const topics = Array.from({ length: MAX_TAGS + 1 }, (_, i) => `topic ${i}`);
    const entity_ids = Array.from({ length: MAX_TAGS + 1 }, (_, i) => `Q${i + 1}`);
    expect(validateOverride({ topics, entity_ids })).toEqual({
      topics: 'validation.tooMany',
      entity_ids: 'validation.tooMany',
    });
    expect(
      validateOverride({
        topics: topics.slice(0, MAX_TAGS),
        entity_ids: entity_ids.slice(0, MAX_TAGS),
      }),
    ).toEqual({});
  });

  it('Given several invalid fields at once, When the override is validated, Then every field is reported', () => {
    const problems = validateOverride({
      license: 'creativecommons.org',
      evidence: [{ rel: 'source', url: 'www.example.com' }],
      stability_pin: 2,
      entity_ids: ['wikidata'],
      topics: [''],
    });
    expect(Object.keys(problems).sort()).toEqual([
      'entity_ids',
      'evidence.0.url',
      'license',
      'stability_pin',
      'topics',
    ]);
  });
});

describe('validateOverride agrees with the server', () => {
  const cases: [string, MetadataOverride][] = [
    ['a complete override', complete()],
    ['a licence URN', { license: 'urn:tdmrep:reserved' }],
    ['an https licence', { license: 'https://example.com/license#tdm' }],
    [
      'an uppercase evidence relation',
      { evidence: [{ rel: 'Source', url: 'https://example.org/a' }] },
    ],
    ['an evidence URL without a scheme', { evidence: [{ rel: 'source', url: 'example.org/a' }] }],
    ['a stability pin above 1', { stability_pin: 1.5 }],
    ['a stability pin of 0', { stability_pin: 0 }],
    ['a lowercase QID', { entity_ids: ['q42'] }],
    ['a prefixed id', { entity_ids: ['wd:Q42'] }],
    ['a blank topic', { topics: [' '] }],
    ['a 121-character topic', { topics: ['t'.repeat(121)] }],
    ['a padded 120-character topic', { topics: [` ${'t'.repeat(120)}`] }],
    ['51 topics', { topics: Array.from({ length: 51 }, (_, i) => `t${i}`) }],
    ['51 entity ids', { entity_ids: Array.from({ length: 51 }, (_, i) => `Q${i + 1}`) }],
  ];

  it.each(cases)(
    'Given %s, When both sides check it, Then the panel flags it exactly when the server refuses it',
    (_name, value) => {
      const panelAccepts = Object.keys(validateOverride(value)).length === 0;
      expect(panelAccepts).toBe(metadataOverrideSchema.safeParse(value).success);
    },
  );

  it('Given the usage vocabulary the panel lists, When every kind and value is chosen, Then the panel and the server accept it, and nothing else', () => {
    for (const kind of USAGE_KINDS)
      for (const choice of USAGE_VALUES)
        expect(validateOverride({ usage: { [kind]: choice } })).toEqual({});
    expect(validateOverride({ usage: { train: 'sometimes' as never } })).toEqual({
      'usage.train': 'validation.invalid',
    });
    expect(validateOverride({ usage: { scrape: 'allow' } as never })).toEqual({
      'usage.scrape': 'validation.invalid',
    });
  });

  it('Given values the panel has no rule of its own for, When they break the server’s, Then each is flagged at its field', () => {
    expect(
      validateOverride({
        citation: { apa: 'x'.repeat(2001) },
        evidence: [{ rel: 'source', url: 'https://example.org/a', title: 't'.repeat(301) }],
        related: ['Not An Id'],
      }),
    ).toEqual({
      'citation.apa': 'validation.tooLong',
      'evidence.0.title': 'validation.tooLong',
      'related.0': 'validation.invalid',
    });
  });

  it('Given a tag being added, When it is checked, Then it is refused exactly when the server would refuse it in the list', () => {
    expect(tagProblem('topics', 'licensing')).toBeNull();
    expect(tagProblem('topics', 'x'.repeat(MAX_TOPIC_LENGTH + 1))).toBe('validation.topic');
    expect(tagProblem('entity_ids', 'wd:Q2013')).toBeNull();
    expect(tagProblem('entity_ids', 'Q-42')).toBe('validation.entityId');
  });
});

describe('cleanOverride: "inherit" and empty inputs become absent keys so the cascade applies', () => {
  it('Given usage kinds left on "inherit" (undefined) or emptied, When the override is cleaned, Then only the chosen values remain', () => {
    const cleaned = cleanOverride({
      usage: { train: 'deny', infer: undefined, cache: '' as never, redistribute: null as never },
    });
    expect(cleaned).toEqual({ usage: { train: 'deny' } });
  });

  it('Given every usage kind on "inherit", When the override is cleaned, Then there is no usage key at all', () => {
    expect(cleanOverride({ usage: { train: undefined, infer: undefined } })).toEqual({});
    expect('usage' in cleanOverride({ usage: {} })).toBe(false);
  });

  it('Given emptied text fields and lists, When the override is cleaned, Then nothing is left', () => {
    const cleaned = cleanOverride({
      license: '',
      evidence: [],
      topics: [],
      entity_ids: [],
      related: [],
      schema: [],
      citation: { apa: '', bibtex: undefined },
      alt_of: '',
      stability_pin: undefined,
      exclude: false,
    });
    expect(cleaned).toEqual({});
  });

  it('Given a cleared number input (NaN), When the override is cleaned, Then the stability pin is inherited', () => {
    expect(cleanOverride({ stability_pin: Number.NaN })).toEqual({});
  });

  it('Given a stability pin of 0, When the override is cleaned, Then it is kept (0 is a value, not "empty")', () => {
    expect(cleanOverride({ stability_pin: 0 })).toEqual({ stability_pin: 0 });
  });

  it('Given half-filled evidence rows, When the override is cleaned, Then they are kept (so the editor sees them) without an empty title', () => {
    const cleaned = cleanOverride({
      evidence: [
        { rel: 'source', url: '', title: '' },
        { rel: '', url: 'https://doi.org/10.1000/182' },
        { ...DSM_DIRECTIVE },
      ],
    });
    expect(cleaned.evidence).toEqual([
      { rel: 'source', url: '' },
      { rel: '', url: 'https://doi.org/10.1000/182' },
      DSM_DIRECTIVE,
    ]);
    expect(Object.keys(cleaned.evidence![0]!)).toEqual(['rel', 'url']);
  });

  it('Given a citation with only the APA text, When the override is cleaned, Then the empty BibTeX is dropped', () => {
    expect(cleanOverride({ citation: { apa: 'Doe, J. (2024). Title.', bibtex: '' } })).toEqual({
      citation: { apa: 'Doe, J. (2024). Title.' },
    });
  });

  it('Given a complete override with exclude set, When it is cleaned, Then every value is kept and the input is not changed', () => {
    const input = {
      ...complete(),
      related: ['article:fragment-permalinks:en'],
      schema: ['Article'],
      alt_of: 'article:geo-index:en',
      exclude: true,
    };
    const copy = structuredClone(input);
    expect(cleanOverride(input)).toEqual(input);
    expect(input).toEqual(copy);
  });
});

describe('cleanEntryMetadata: the whole attribute as saved', () => {
  it('Given a blank reason and sensitive unchecked, When the attribute is cleaned, Then neither is saved', () => {
    expect(
      cleanEntryMetadata({
        reason: '   ',
        sensitive: false,
        license: 'https://example.com/license#tdm',
      }),
    ).toEqual({
      license: 'https://example.com/license#tdm',
    });
  });

  it('Given a reason with a trailing space being typed, When the attribute is cleaned, Then it is kept as typed', () => {
    expect(cleanEntryMetadata({ reason: 'Add the 2025 figures ' })).toEqual({
      reason: 'Add the 2025 figures ',
    });
  });

  it('Given fragment overrides of which one is all "inherit", When the attribute is cleaned, Then that fragment disappears and the other is cleaned', () => {
    const value: EntryMetadata = {
      sensitive: true,
      fragments: {
        'article:geo-index:en:why-classic-sitemaps-fail': {
          usage: { train: undefined },
          license: '',
        },
        'article:geo-index:en:security-and-privacy': { exclude: true, topics: [] },
      },
    };
    expect(cleanEntryMetadata(value)).toEqual({
      sensitive: true,
      fragments: { 'article:geo-index:en:security-and-privacy': { exclude: true } },
    });
  });

  it('Given only empty fragment overrides, When the attribute is cleaned, Then there is no fragments key', () => {
    expect(cleanEntryMetadata({ fragments: { 'article:geo-index:en:intro': {} } })).toEqual({});
  });
});

describe('readEntryMetadata: the stored attribute, read leniently', () => {
  it.each([
    ['null', null],
    ['undefined', undefined],
    ['an array', [{ license: 'https://example.com' }]],
    ['a number', 42],
    ['malformed JSON text', '{"usage":'],
    ['JSON text of null', 'null'],
  ])('Given %s, When it is read, Then nothing is set', (_name, raw) => {
    expect(readEntryMetadata(raw)).toEqual({});
  });

  it('Given the attribute stored as JSON text, When it is read, Then it is parsed', () => {
    expect(readEntryMetadata('{"usage":{"train":"deny"},"reason":"Initial publication"}')).toEqual({
      usage: { train: 'deny' },
      reason: 'Initial publication',
    });
  });

  it('Given the attribute as an object, When it is read, Then it is used as it is', () => {
    const stored = {
      topics: ['TDM'],
      fragments: { 'article:tdm-licensing:en:faq': { exclude: true } },
    };
    expect(readEntryMetadata(stored)).toBe(stored);
  });
});

describe('splitTags: what an editor typed into a tags input', () => {
  it('Given comma, semicolon and newline separated tags with spaces, When they are split, Then they are trimmed in order', () => {
    expect(splitTags(' TDM, licensing;copyright\nrobots.txt ', [])).toEqual([
      'TDM',
      'licensing',
      'copyright',
      'robots.txt',
    ]);
  });

  it('Given tags already present or repeated, When they are split, Then each appears once and existing ones are not added again', () => {
    expect(splitTags('licensing, TDM, TDM, AI Act', ['licensing'])).toEqual(['TDM', 'AI Act']);
  });

  it('Given only separators and spaces, When they are split, Then there are no tags', () => {
    expect(splitTags(' , ;\n ', ['TDM'])).toEqual([]);
  });

  it('Given a tag with different case, When it is split, Then it is a different tag', () => {
    expect(splitTags('tdm', ['TDM'])).toEqual(['tdm']);
  });
});

describe('flattenFormErrors / errorAt / errorsBelow: the server’s refusal next to the fields', () => {
  // How the Content Manager keeps a 400 answer's details: nested by path, arrays for indexes.
  const formErrors = {
    evidence: [undefined, { url: 'sitemapAi.evidence[1].url: must be an absolute http(s) URL' }],
    usage: { train: 'sitemapAi.usage.train: must be one of allow, deny, allow-with-citation' },
    fragments: {
      'article:geo-index:en:intro': {
        license:
          'sitemapAi.fragments["article:geo-index:en:intro"].license: must be an absolute http(s) URI',
      },
    },
  };

  it('Given nested errors of a refused save, When they are flattened, Then they are keyed by dotted path without the field name in front', () => {
    expect(flattenFormErrors(formErrors)).toEqual({
      'evidence.1.url': 'must be an absolute http(s) URL',
      'usage.train': 'must be one of allow, deny, allow-with-citation',
      'fragments.article:geo-index:en:intro.license': 'must be an absolute http(s) URI',
    });
  });

  it('Given no errors (undefined, null) or a message without a field name, When they are flattened, Then nothing is lost or invented', () => {
    expect(flattenFormErrors(undefined)).toEqual({});
    expect(flattenFormErrors(null)).toEqual({});
    expect(flattenFormErrors({ reason: 'must be at most 2000 characters' })).toEqual({
      reason: 'must be at most 2000 characters',
    });
  });

  it('Given flattened errors, When the error at a path is asked for, Then the exact path or the first one below it answers', () => {
    const errors = flattenFormErrors(formErrors);
    expect(errorAt(errors, 'usage.train')).toBe('must be one of allow, deny, allow-with-citation');
    expect(errorAt(errors, 'evidence.1')).toBe('must be an absolute http(s) URL');
    expect(errorAt(errors, 'evidence')).toBe('must be an absolute http(s) URL');
    expect(errorAt(errors, 'evidence.0')).toBeUndefined();
    expect(errorAt(errors, 'license')).toBeUndefined();
  });

  it('Given row 1 has an error, When row 10 or a key sharing its prefix is asked for, Then it does not answer for them', () => {
    const errors = { 'evidence.1.url': 'bad', 'usage.trainer': 'unknown field' };
    expect(errorAt(errors, 'evidence.10')).toBeUndefined();
    expect(errorAt(errors, 'usage.train')).toBeUndefined();
  });

  it('Given flattened errors, When the errors below a fragment are asked for, Then they come with the prefix removed', () => {
    const errors = flattenFormErrors(formErrors);
    expect(errorsBelow(errors, 'fragments.article:geo-index:en:intro')).toEqual({
      license: 'must be an absolute http(s) URI',
    });
    expect(errorsBelow(errors, 'evidence')).toEqual({ '1.url': 'must be an absolute http(s) URL' });
    expect(errorsBelow(errors, 'fragments.article:geo-index:en:why')).toEqual({});
  });
});

describe('isRecordedReason: a reason the next publish would not repeat', () => {
  it('Given the reason recorded with the last published change still in the field, When it is compared, Then it would not be used again', () => {
    expect(isRecordedReason('Initial publication', 'Initial publication')).toBe(true);
  });

  it('Given the same reason with spaces around it, When it is compared, Then it matches, as the server compares it trimmed', () => {
    expect(isRecordedReason('  Initial publication \n', 'Initial publication')).toBe(true);
  });

  it.each([
    ['a new reason', 'Add the September figures', 'Initial publication'],
    ['a different case', 'initial publication', 'Initial publication'],
    ['an empty field', '', 'Initial publication'],
    ['no reason', undefined, 'Initial publication'],
    ['nothing recorded yet', 'Initial publication', undefined],
  ])(
    'Given %s, When it is compared, Then it is not a repeated reason',
    (_name, reason, recorded) => {
      expect(isRecordedReason(reason, recorded)).toBe(false);
    },
  );
});

describe('URL guards', () => {
  it.each([
    ['https://example.com/license#tdm', true, true],
    ['http://localhost:1337/api', true, true],
    ['urn:tdmrep:reserved', false, true],
    ['mailto:legal@example.com', false, true],
    ['file:///etc/passwd', false, true],
    ['https://', false, false],
    ['/license', false, false],
    ['example.com', false, false],
  ])(
    'Given %j, When it is checked, Then it is an http(s) URL: %s, an absolute URI: %s',
    (value, http, absolute) => {
      expect(isHttpUrl(value)).toBe(http);
      expect(isAbsoluteUri(value)).toBe(absolute);
    },
  );
});
