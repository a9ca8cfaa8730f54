import { afterEach, describe, expect, it } from 'vitest';
import type { Core } from '@strapi/strapi';
import { blobKey, encodeBlob } from '../../server/src/repositories/blob-codec';
import { createBlobRepository } from '../../server/src/repositories/blob-repository';
import { stopPluginThread } from '../../server/src/utils/plugin-thread';

/**
 * Preparing a write's texts (repositories/blob-repository.ts `prepare`): keys now, bodies in the
 * order of the distinct keys; keys and bodies made already (a first build's canonical texts, keyed
 * and encoded on the plugin's thread with their drafts) are used as given, and only the others are
 * hashed and encoded.
 */
describe('prepare', () => {
  // (prepare touches no table)
  const blobs = createBlobRepository({ strapi: {} as Core.Strapi });
  afterEach(async () => {
    await stopPluginThread();
  });

  it('Given some texts keyed and encoded already, Then their keys and bodies are those given and the others are hashed and encoded, in the order of the distinct keys', async () => {
    const texts = Array.from({ length: 600 }, (_, i) => `text ${i % 500} `.repeat(1 + (i % 7)));
    // (marker keys and bodies: were a given text hashed or encoded again, they would not be these)
    const given = texts.map((text, i) =>
      i % 3 === 0
        ? { key: `given-${blobKey(text)}`, body: Buffer.from(`given ${text}`) }
        : undefined,
    );
    const prepared = blobs.prepare(texts, given);
    expect(prepared.keys).toEqual(texts.map((text, i) => given[i]?.key ?? blobKey(text)));
    const byKey = new Map<string, number>();
    prepared.keys.forEach((key, i) => {
      if (!byKey.has(key)) byKey.set(key, i);
    });
    expect(prepared.distinct).toEqual([...byKey.keys()]);
    const bodies = await prepared.bodies;
    expect(bodies).toHaveLength(prepared.distinct.length);
    prepared.distinct.forEach((key, i) => {
      const first = byKey.get(key)!;
      expect(bodies[i]!.equals(given[first]?.body ?? encodeBlob(texts[first]!)), key).toBe(true);
    });
  });

  it('Given a text twice, only its second place given, Then the body given is used for both', async () => {
    const body = Buffer.from('given a');
    const prepared = blobs.prepare(['a', 'a'], [undefined, { key: blobKey('a'), body }]);
    expect(prepared.keys).toEqual([blobKey('a'), blobKey('a')]);
    expect(await prepared.bodies).toEqual([body]);
  });

  it('Given every text encoded already, Then nothing is encoded and the bodies are those given', async () => {
    const texts = ['a', 'b', 'a'];
    const given = texts.map((text) => ({ key: blobKey(text), body: Buffer.from(`given ${text}`) }));
    const prepared = blobs.prepare(texts, given);
    expect((await prepared.bodies).map(String)).toEqual(['given a', 'given b']);
    expect(await stopPluginThread()).toBe(false);
  });
});
