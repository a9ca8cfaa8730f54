import { afterEach, describe, expect, it } from 'vitest';
import { decodeBlob, encodeBlob } from '../../server/src/repositories/blob-codec';
import { MESSAGE_CHARS, encodeBodies } from '../../server/src/repositories/blob-encoder';
import { stopPluginThread } from '../../server/src/utils/plugin-thread';

/** Texts of a large write: item data, canonical texts, and short ones stored plain. */
function texts(count: number, salt = ''): string[] {
  return Array.from({ length: count }, (_, i) => {
    if (i % 3 === 0)
      return JSON.stringify({
        id: `article:a-${i}${salt}:en:intro`,
        url: `https://example.com/en/articles/a-${i}#intro`,
        type: 'section',
        lang: 'en',
        usage: {
          train: 'deny',
          infer: 'allow-with-citation',
          cache: 'allow',
          redistribute: 'deny',
        },
      });
    if (i % 3 === 1)
      return `Lead paragraph ${i}${salt} — résumé, 日本語, citing [a source](https://w3.org/).`;
    return `x${i}${salt}`;
  });
}

describe('encoding stored texts on a second thread', () => {
  afterEach(async () => {
    await stopPluginThread();
  });

  it('writes the bytes the calling thread writes, for a write large enough to use the worker', async () => {
    const many = texts(600);
    const bodies = await encodeBodies(many);
    expect(await stopPluginThread()).toBe(true);
    expect(bodies).toHaveLength(many.length);
    bodies.forEach((body, i) => {
      expect(body.equals(encodeBlob(many[i]!))).toBe(true);
      expect(decodeBlob(body)).toBe(many[i]);
    });
    // both formats occur
    expect(new Set(bodies.map((body) => String.fromCharCode(body[0]!)))).toEqual(
      new Set(['z', 'p']),
    );
  });

  it('encodes a small write where it is written, starting no thread', async () => {
    const few = texts(20);
    const bodies = await encodeBodies(few);
    expect(bodies.map((body) => decodeBlob(body))).toEqual(few);
    expect(await stopPluginThread()).toBe(false);
  });

  it('answers writes asked at once with their own bodies', async () => {
    const first = texts(400, '-first');
    const second = texts(300, '-second');
    const [a, b] = await Promise.all([encodeBodies(first), encodeBodies(second)]);
    expect(a.map((body) => decodeBlob(body))).toEqual(first);
    expect(b.map((body) => decodeBlob(body))).toEqual(second);
  });

  it('encodes on the calling thread what a stopped worker was asked', async () => {
    const many = texts(2000);
    const pending = encodeBodies(many);
    expect(await stopPluginThread()).toBe(true);
    const bodies = await pending;
    bodies.forEach((body, i) => expect(body.equals(encodeBlob(many[i]!))).toBe(true));
    // and a later write starts another worker
    expect((await encodeBodies(texts(300))).length).toBe(300);
    expect(await stopPluginThread()).toBe(true);
  });

  it('hands a write longer than one message to the worker in several, its bodies in order', async () => {
    // Three messages' worth of distinct texts, and one text longer than a message alone.
    const size = 4_000;
    const count = Math.ceil((2.5 * MESSAGE_CHARS) / size);
    const many = Array.from({ length: count }, (_, i) =>
      `${i} `.padEnd(size, `section ${i} of a long article; `),
    );
    const long = `a long text, `.padEnd(MESSAGE_CHARS + 1, 'with words of its own, ');
    many.splice(count >> 1, 0, long);
    const bodies = await encodeBodies(many);
    expect(await stopPluginThread()).toBe(true);
    expect(bodies).toHaveLength(many.length);
    bodies.forEach((body, i) => expect(body.equals(encodeBlob(many[i]!))).toBe(true));
    expect(decodeBlob(bodies[count >> 1]!)).toBe(long);
  });
});
