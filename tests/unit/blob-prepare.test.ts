import { afterEach, describe, expect, it } from 'vitest';
import type { Core } from '@strapi/strapi';
import { blobKey, encodeBlob } from '../../server/src/repositories/blob-codec';
import { createBlobRepository } from '../../server/src/repositories/blob-repository';
import { stopPluginThread } from '../../server/src/utils/plugin-thread';

/**
 * Preparing a write's texts (repositories/blob-repository.ts `prepare`): keys now, bodies in the
 * order of the distinct keys; bodies made already (a first build's canonical texts, encoded on the
 * plugin's thread with their drafts) are used as given, and only the others are encoded.
 */
describe('prepare', () => {
  // (prepare touches no table)
  const blobs = createBlobRepository({ strapi: {} as Core.Strapi });
  afterEach(async () => {
    await stopPluginThread();
  });

  it('Given some texts encoded already, Then their bodies are those given and the others are encoded, in the order of the distinct keys', async () => {
    const texts = Array.from({ length: 600 }, (_, i) => `text ${i % 500} `.repeat(1 + (i % 7)));
    const given = new Map<string, Buffer>();
    texts.forEach((text, i) => {
      // (a marker body: were it encoded again, it would not be this)
      if (i % 3 === 0) given.set(text, Buffer.from(`given ${text}`));
    });
    const prepared = blobs.prepare(texts, given);
    expect(prepared.keys).toEqual(texts.map(blobKey));
    const byKey = new Map(texts.map((text) => [blobKey(text), text]));
    expect(prepared.distinct).toEqual([...byKey.keys()]);
    const bodies = await prepared.bodies;
    expect(bodies).toHaveLength(prepared.distinct.length);
    prepared.distinct.forEach((key, i) => {
      const text = byKey.get(key)!;
      expect(bodies[i]!.equals(given.get(text) ?? encodeBlob(text)), key).toBe(true);
    });
  });

  it('Given every text encoded already, Then nothing is encoded and the bodies are those given', async () => {
    const texts = ['a', 'b', 'a'];
    const given = new Map(texts.map((text) => [text, Buffer.from(`given ${text}`)]));
    const prepared = blobs.prepare(texts, given);
    expect((await prepared.bodies).map(String)).toEqual(['given a', 'given b']);
    expect(await stopPluginThread()).toBe(false);
  });
});
