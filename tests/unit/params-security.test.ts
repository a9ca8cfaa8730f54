import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InvalidParameterError } from '../../server/src/core/errors';
import { validateItemId, validateManifestParams } from '../../server/src/core/params';

const LIMITS = { default: 500, max: 1000 };

function parameterError(run: () => unknown): InvalidParameterError {
  try {
    run();
  } catch (error) {
    if (error instanceof InvalidParameterError) return error;
    throw error;
  }
  throw new Error('expected an InvalidParameterError');
}

describe('validateManifestParams', () => {
  it('Given no parameters, When validated, Then the default limit applies', () => {
    expect(validateManifestParams({}, LIMITS)).toEqual({ limit: 500 });
  });

  it('Given every allowed parameter, When validated, Then they are returned typed', () => {
    expect(
      validateManifestParams(
        { limit: '1000', page_token: 'eyJ2IjoxfQ.c2ln', type: 'faq', lang: 'sk' },
        LIMITS,
      ),
    ).toEqual({
      limit: 1000,
      page_token: 'eyJ2IjoxfQ.c2ln',
      type: 'faq',
      lang: 'sk',
    });
    expect(validateManifestParams({ limit: '1', lang: 'zh-Hant-TW' }, LIMITS)).toEqual({
      limit: 1,
      lang: 'zh-Hant-TW',
    });
  });

  it.each([
    '0',
    '1001',
    '-1',
    '1e3',
    'abc',
    '',
    ' 5',
    '5 ',
    '10.0',
    '0x10',
    '99999999',
    'Infinity',
    'NaN',
    '１０',
  ])('Given limit=%j, When validated, Then it is a 400 naming limit', (limit) => {
    const error = parameterError(() => validateManifestParams({ limit }, LIMITS));
    expect(error.parameter).toBe('limit');
    expect(error.status).toBe(400);
    expect(error.message).toBe('Invalid "limit": must be a whole number from 1 to 1000');
  });

  it('Given a lower site maximum, When limit exceeds it, Then the message names that maximum', () => {
    expect(() => validateManifestParams({ limit: '300' }, { default: 100, max: 200 })).toThrow(
      'from 1 to 200',
    );
  });

  it.each([
    ['a repeated limit', { limit: ['10', '20'] }, 'limit'],
    ['a nested limit', { limit: { $gt: '0' } }, 'limit'],
    ['a repeated type', { type: ['section', 'faq'] }, 'type'],
    ['a numeric lang', { lang: 7 }, 'lang'],
    ['an array page_token', { page_token: ['a', 'b'] }, 'page_token'],
  ])('Given %s, When validated, Then it is refused as not a plain value', (_, query, parameter) => {
    const error = parameterError(() => validateManifestParams(query, LIMITS));
    expect(error.parameter).toBe(parameter);
    expect(error.message).toContain('give it once, as a plain value');
  });

  it.each(['offset', 'page', 'filters[type]', '__proto__', 'constructor', 'LIMIT'])(
    'Given the unknown parameter %j, When validated, Then it is refused with the allowed list',
    (key) => {
      const query = Object.fromEntries([[key, '1']]);
      const error = parameterError(() => validateManifestParams(query, LIMITS));
      expect(error.parameter).toBe(key);
      expect(error.message).toContain('allowed are limit, page_token, type, lang');
    },
  );

  it.each(['video', 'Article', 'section ', 'section,faq', '', "article' OR 1=1"])(
    'Given type=%j, When validated, Then it is refused',
    (type) => {
      expect(parameterError(() => validateManifestParams({ type }, LIMITS)).message).toContain(
        'must be one of article, section, table, figure, dataset, faq',
      );
    },
  );

  it.each([
    'english',
    'e',
    'en_US',
    'en-',
    '../etc',
    '<script>',
    'sk-SK-x-very-long-private-tag-here',
    'en-US-a-b-c',
    '',
  ])('Given lang=%j, When validated, Then it is refused', (lang) => {
    expect(parameterError(() => validateManifestParams({ lang }, LIMITS)).parameter).toBe('lang');
  });

  it('Given a 10 000-character page_token, When validated, Then it is refused without decoding', () => {
    const error = parameterError(() =>
      validateManifestParams({ page_token: 'A'.repeat(10_000) }, LIMITS),
    );
    expect(error.parameter).toBe('page_token');
  });

  it('Given an empty page_token, When validated, Then it is refused', () => {
    expect(parameterError(() => validateManifestParams({ page_token: '' }, LIMITS)).parameter).toBe(
      'page_token',
    );
  });

  it('Given any query of strings, When validated, Then it either succeeds within bounds or throws InvalidParameterError (property)', () => {
    fc.assert(
      fc.property(
        fc.dictionary(
          fc.constantFrom('limit', 'page_token', 'type', 'lang', 'sort', 'q'),
          fc.oneof(fc.string({ maxLength: 20 }), fc.array(fc.string(), { maxLength: 2 })),
        ),
        (query) => {
          try {
            const params = validateManifestParams(query, LIMITS);
            expect(params.limit).toBeGreaterThanOrEqual(1);
            expect(params.limit).toBeLessThanOrEqual(1000);
            expect(Number.isInteger(params.limit)).toBe(true);
          } catch (error) {
            expect(error).toBeInstanceOf(InvalidParameterError);
          }
        },
      ),
    );
  });
});

describe('validateItemId', () => {
  it.each([
    'article:geo-index:en',
    'article:geo-index:en:why-classic-sitemaps-fail',
    'blog-post:k8v2q0m3:sk:results-table-1',
    'a'.repeat(255),
  ])('Given the id %j, When validated, Then it is returned', (id) => {
    expect(validateItemId(id)).toBe(id);
  });

  it.each([
    ['path traversal', '../../etc/passwd'],
    ['encoded traversal', '..%2F..%2Fetc%2Fpasswd'],
    ['a slash', 'article:geo-index/en'],
    ['uppercase', 'Article:Geo-Index:EN'],
    ['300 characters', 'a'.repeat(300)],
    ['256 characters', 'a'.repeat(256)],
    ['unicode', 'article:prečo:sk'],
    ['a homoglyph', 'аrticle:geo:en'],
    ['a leading colon', ':article:geo:en'],
    ['a leading dash', '-article'],
    ['whitespace', 'article:geo index:en'],
    ['a newline', 'article:geo:en\n'],
    ['a NUL byte', 'article\u0000:geo'],
    ['SQL', "article' OR '1'='1"],
    ['empty', ''],
  ])('Given an id with %s, When validated, Then it is a 400 naming id', (_, id) => {
    const error = parameterError(() => validateItemId(id));
    expect(error.parameter).toBe('id');
    expect(error.status).toBe(400);
  });

  it.each([undefined, null, 42, ['article:geo:en'], { id: 'article:geo:en' }])(
    'Given the non-string %j, When validated, Then it is refused',
    (raw) => {
      expect(() => validateItemId(raw)).toThrow(InvalidParameterError);
    },
  );
});
