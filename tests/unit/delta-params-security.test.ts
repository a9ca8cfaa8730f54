import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InvalidParameterError } from '../../server/src/core/errors';
import { validateChangelogParams, validateDeltaParams } from '../../server/src/core/params';

const LIMITS = { default: 500, max: 1000 };
const CHANGELOG_LIMITS = { default: 50, max: 1000 };

function parameterError(run: () => unknown): InvalidParameterError {
  try {
    run();
  } catch (error) {
    if (error instanceof InvalidParameterError) return error;
    throw error;
  }
  throw new Error('expected an InvalidParameterError');
}

describe('validateDeltaParams: since', () => {
  it('Given no since, When validated, Then it is a 400 saying since is required and what it may be', () => {
    const error = parameterError(() => validateDeltaParams({ limit: '100' }, LIMITS));
    expect(error.parameter).toBe('since');
    expect(error.status).toBe(400);
    expect(error.message).toContain('required');
    expect(error.message).toContain('snapshot id');
    expect(error.message).toContain('ISO-8601');
  });

  it.each([
    ['12', 12],
    ['1', 1],
    ['0', 0],
    ['9999999999', 9_999_999_999],
  ])(
    'Given since=%j (a snapshot id), When validated, Then it is that snapshot with the default limit',
    (since, snapshot) => {
      expect(validateDeltaParams({ since }, LIMITS)).toEqual({ limit: 500, since: { snapshot } });
    },
  );

  it.each([
    ['UTC with Z', '2026-11-30T09:00:00Z', '2026-11-30T09:00:00.000Z'],
    ['milliseconds', '2026-11-30T09:00:00.250Z', '2026-11-30T09:00:00.250Z'],
    ['a positive offset', '2026-11-30T10:00:00+01:00', '2026-11-30T09:00:00.000Z'],
    ['a negative offset across midnight', '2026-11-29T22:30:00-10:30', '2026-11-30T09:00:00.000Z'],
    ['minutes only', '2026-11-30T09:00Z', '2026-11-30T09:00:00.000Z'],
    ['nanoseconds', '2026-11-30T09:00:00.123456789Z', '2026-11-30T09:00:00.123Z'],
    ['a leap day', '2028-02-29T12:00:00Z', '2028-02-29T12:00:00.000Z'],
  ])('Given a time with %s, When validated, Then it is normalised to UTC ISO', (_, since, time) => {
    expect(validateDeltaParams({ since }, LIMITS).since).toEqual({ time });
  });

  it.each([
    ['a time without zone', '2026-11-30T09:00:00'],
    ['a date only', '2026-11-30'],
    ['a space instead of T', '2026-11-30 09:00:00Z'],
    ['an 11-digit number', '12345678901'],
    ['a 400-digit number', '9'.repeat(400)],
    ['a negative number', '-1'],
    ['a decimal', '12.5'],
    ['an exponent', '1e3'],
    ['hex', '0x10'],
    ['padding', ' 12'],
    ['full-width digits', '１２'],
    ['the empty string', ''],
    ['a word', 'yesterday'],
    ['an RFC 2822 date', 'Mon, 30 Nov 2026 09:00:00 GMT'],
    ['a unix time in ms', '1796029200000'],
    ['month 13', '2026-13-01T00:00:00Z'],
    ['hour 25', '2026-11-30T25:00:00Z'],
    ['an offset of 25 hours', '2026-11-30T09:00:00+25:00'],
    ['30 February', '2026-02-30T09:00:00Z'],
    ['31 April', '2026-04-31T09:00:00Z'],
    ['29 February of a common year', '2026-02-29T09:00:00Z'],
    ['an ISO time with trailing junk', '2026-11-30T09:00:00Z; DROP TABLE snapshots'],
    ['a script', '<script>alert(1)</script>'],
    ['a 10 000-character string', `2026-11-30T09:00:00Z${'0'.repeat(10_000)}`],
  ])('Given since as %s, When validated, Then it is a 400 naming since', (_, since) => {
    const error = parameterError(() => validateDeltaParams({ since }, LIMITS));
    expect(error.parameter).toBe('since');
    expect(error.status).toBe(400);
    expect(error.message).toContain('with a zone');
  });

  it.each([
    ['repeated', ['12', '13']],
    ['nested', { $gt: '12' }],
    ['a number', 12],
    ['null', null],
  ])('Given since %s, When validated, Then it is refused as not a plain value', (_, since) => {
    const error = parameterError(() => validateDeltaParams({ since }, LIMITS));
    expect(error.parameter).toBe('since');
    expect(error.message).toContain('give it once, as a plain value');
  });
});

describe('validateDeltaParams: the other parameters', () => {
  it('Given every allowed parameter, When validated, Then they are returned typed like the manifest', () => {
    expect(
      validateDeltaParams(
        { since: '41', limit: '200', page_token: 'eyJ2IjoxfQ.c2ln', type: 'section', lang: 'sk' },
        LIMITS,
      ),
    ).toEqual({
      since: { snapshot: 41 },
      limit: 200,
      page_token: 'eyJ2IjoxfQ.c2ln',
      type: 'section',
      lang: 'sk',
    });
  });

  it.each([
    ['limit', { limit: '1001' }],
    ['limit', { limit: ['10', '20'] }],
    ['type', { type: 'video' }],
    ['lang', { lang: '../etc' }],
    ['page_token', { page_token: 'A'.repeat(10_000) }],
  ])(
    'Given a valid since and a bad %s, When validated, Then it is a 400 naming that parameter',
    (parameter, query) => {
      const error = parameterError(() =>
        validateDeltaParams({ since: '2026-11-30T09:00:00Z', ...query }, LIMITS),
      );
      expect(error.parameter).toBe(parameter);
      expect(error.status).toBe(400);
    },
  );

  it.each(['offset', 'until', 'filters[type]', '__proto__', 'SINCE'])(
    'Given the unknown parameter %j, When validated, Then it is refused with the allowed list, since included',
    (key) => {
      const error = parameterError(() =>
        validateDeltaParams(
          Object.fromEntries([
            ['since', '12'],
            [key, '1'],
          ]),
          LIMITS,
        ),
      );
      expect(error.parameter).toBe(key);
      expect(error.message).toContain('allowed are since, limit, page_token, type, lang');
    },
  );

  it('Given any query, When validated, Then it succeeds with a valid since or throws InvalidParameterError (property)', () => {
    fc.assert(
      fc.property(
        fc.dictionary(
          fc.constantFrom('since', 'limit', 'type', 'lang', 'until'),
          fc.oneof(
            fc.string({ maxLength: 30 }),
            fc.stringMatching(/^[0-9]{1,12}$/),
            fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
            fc.array(fc.string(), { maxLength: 2 }),
          ),
        ),
        (query) => {
          try {
            const { since } = validateDeltaParams(query, LIMITS);
            if ('snapshot' in since)
              expect(Number.isSafeInteger(since.snapshot) && since.snapshot >= 0).toBe(true);
            else expect(new Date(since.time).toISOString()).toBe(since.time);
          } catch (error) {
            expect(error).toBeInstanceOf(InvalidParameterError);
          }
        },
      ),
    );
  });
});

describe('validateChangelogParams', () => {
  it('Given no parameters, When validated, Then the changelog default limit applies', () => {
    expect(validateChangelogParams({}, CHANGELOG_LIMITS)).toEqual({ limit: 50 });
  });

  it('Given limit and page_token, When validated, Then both are returned', () => {
    expect(
      validateChangelogParams({ limit: '20', page_token: 'eyJ2IjoxfQ.c2ln' }, CHANGELOG_LIMITS),
    ).toEqual({ limit: 20, page_token: 'eyJ2IjoxfQ.c2ln' });
  });

  it.each(['type', 'lang', 'since', 'offset'])(
    'Given the manifest-only or unknown parameter %j, When validated, Then it is refused naming limit and page_token',
    (key) => {
      const error = parameterError(() =>
        validateChangelogParams(Object.fromEntries([[key, 'section']]), CHANGELOG_LIMITS),
      );
      expect(error.parameter).toBe(key);
      expect(error.status).toBe(400);
      expect(error.message).toBe(
        `Invalid "${key}": unknown parameter; allowed are limit, page_token`,
      );
    },
  );

  it.each([
    ['limit', { limit: '0' }],
    ['limit', { limit: '1001' }],
    ['limit', { limit: '-5' }],
    ['limit', { limit: ['10', '20'] }],
    ['page_token', { page_token: '' }],
    ['page_token', { page_token: ['a', 'b'] }],
  ])('Given a bad %s, When validated, Then it is a 400 naming it', (parameter, query) => {
    expect(parameterError(() => validateChangelogParams(query, CHANGELOG_LIMITS)).parameter).toBe(
      parameter,
    );
  });
});
