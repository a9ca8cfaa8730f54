import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { jsonMember } from '../../server/src/repositories/json';

/** What jsonMember must answer for a valid JSON object: JSON.parse's own member. */
function parsedMember(text: string, key: string): { value?: unknown } {
  const parsed = JSON.parse(text) as Record<string, unknown>;
  return Object.prototype.hasOwnProperty.call(parsed, key) ? { value: parsed[key] } : {};
}

/** Keys that look like the one asked for, or hold what the scanner must step over. */
const KEYS = fc.oneof(
  fc.constant('usage'),
  fc.constantFrom('usage ', 'Usage', 'usag', 'a"usage', 'us\\age', '{', '}', ',', ':', '\\'),
  fc.string(),
);

/** Values with the characters a scanner can trip on: quotes, backslashes, brackets, commas. */
const TRICKY = fc.constantFrom(
  '"usage":{"train":"deny"}',
  '\\',
  '\\"',
  '\\\\',
  '}{',
  '][',
  ',"usage":1',
  '\u2028',
);
const VALUES = fc.oneof(
  fc.jsonValue(),
  TRICKY,
  fc.array(fc.oneof(TRICKY, fc.integer())),
  fc.dictionary(KEYS, fc.oneof(TRICKY, fc.jsonValue({ maxDepth: 2 }))),
);

/** The same object as other writers may write it: spaced out, or with its keys escaped. */
const LAYOUTS: ((value: unknown) => string)[] = [
  (value) => JSON.stringify(value),
  (value) => JSON.stringify(value, null, 2),
  (value) => ` \n${JSON.stringify(value, null, '\t')}\r\n `,
  (value) => JSON.stringify(value).replace(/"usage":/g, '"\\u0075sage":'),
];

describe('one member of a stored JSON object (jsonMember)', () => {
  it('answers what JSON.parse gives for that member, for any object and layout', () => {
    fc.assert(
      fc.property(
        fc.dictionary(KEYS, VALUES, { maxKeys: 12 }),
        fc.constantFrom(...LAYOUTS),
        (object, layout) => {
          const text = layout(object);
          expect(jsonMember(text, 'usage')).toEqual(parsedMember(text, 'usage'));
        },
      ),
      { numRuns: 3000 },
    );
  });

  it('reads the usage of a stored item among members that mention it', () => {
    const text = JSON.stringify({
      id: 'article:1:en:s1',
      title: 'What "usage":{"train":"allow"} means, and a \\ backslash',
      tags: [{ usage: { train: 'allow' } }, '}'],
      usage: { train: 'deny', infer: 'allow-with-citation', cache: 'allow', redistribute: 'deny' },
      signals: { usage: 'not this one' },
      checksum: 'sha256:00',
    });
    expect(jsonMember(text, 'usage')).toEqual({
      value: { train: 'deny', infer: 'allow-with-citation', cache: 'allow', redistribute: 'deny' },
    });
    expect(jsonMember(text, 'title')).toEqual({
      value: 'What "usage":{"train":"allow"} means, and a \\ backslash',
    });
  });

  it('keeps the last of several members of the name, as JSON.parse does', () => {
    expect(
      jsonMember('{"usage":{"train":"allow"},"a":1,"usage":{"train":"deny"}}', 'usage'),
    ).toEqual({ value: { train: 'deny' } });
  });

  it('answers an empty answer for an object without the member', () => {
    expect(jsonMember('{}', 'usage')).toEqual({});
    expect(jsonMember('{"usages":1,"a":{"usage":2}}', 'usage')).toEqual({});
  });

  it('answers null for what is not a whole object, so that the caller parses it whole', () => {
    for (const text of [
      '',
      '[]',
      '"usage"',
      'null',
      '{"usage":{"train":"deny"}',
      '{"usage":{"train":"deny"}}}',
      '{"usage":1,}',
      '{"usage" 1}',
      '{usage:1}',
      '{"usage":"deny}',
      '{"usage":}',
      '{"usage":{"train":"deny"}} x',
      '{"usage":tru}',
    ])
      expect(jsonMember(text, 'usage'), text).toBeNull();
  });
});
