import { createDeflateRaw, createInflateRaw, deflateRawSync, inflateRawSync } from 'node:zlib';
import { blobKey } from '../core/canonical';

/**
 * How the plugin stores an item's data and canonical text (README "Storage"): each distinct text
 * once, under a key derived from it, deflated against a fixed dictionary of what manifest items
 * repeat (field names, usage values, citation templates, Markdown structure). A stored body starts
 * with its format letter, so bodies written in one format stay readable when another is added:
 *   `z` — raw deflate with DICTIONARY_V1;
 *   `p` — the text itself, UTF-8.
 * Bodies are bytes (a binary column); earlier releases wrote them as text, the deflated ones
 * base64-encoded, and those stay readable. DICTIONARY_V1 must never change: stored bodies depend
 * on it byte for byte.
 */
export const DICTIONARY_V1 = Buffer.from(
  [
    '| --- | --- |\n|---|---|\n![](/uploads/ "")\n\n## \n\n### \n\n- \n\n1. **',
    '{"rel":"cites","url":"https://{"rel":"source","url":"https://',
    '"columns":[{"name":"","unit":""}],"units":"source_method":"update_cycle":"alt":"caption":',
    '"stability_score":"revisit_after":"P30D","authors":["topics":["embedding_hint":{"chunk":"by_h2","max_tokens":800}',
    ',"citation":{"apa":" (v1.0). https://","bibtex":"@online{_2026,\\n  title = {},\\n  author = {},',
    '\\n  organization = {},\\n  year = {2026},\\n  version = {v1.0},\\n  url = {https://},',
    '\\n  langid = {en},\\n  date = {2026-01-01}\\n}"},"changelog":[{"date":"2026-01-01T00:00:00.000Z",',
    '"version":"v1.0","desc":"section \' added"}]}',
    '{"id":"article::en:","url":"https://www./en/articles/#","type":"section","parent":"article::en",',
    '"lang":"en","title":"","license":"https://creativecommons.org/licenses/by/4.0/",',
    '"usage":{"train":"deny","infer":"allow-with-citation","cache":"allow","redistribute":"deny"},',
    '"checksum":"sha256:","evidence":[],"schema":["WebPageElement"],',
    '"signals":{"canonical":"https://","first_published":"2026-01-01T00:00:00.000Z"},',
    '"content_url":"https:///api/sitemap-ai/fragments/article::en:/content","version":"v1.0",',
    '"modified":"2026-01-01T00:00:00.000Z","citation":{"apa":"',
  ].join(''),
);

// The key of a stored text is core's (`blobKey`): the plugin's thread keys what it encodes.
export { blobKey };

/**
 * What bodyEncoder and bodyDecoder use of a zlib stream when they keep its state (Node's
 * internals: each checks that they are there, and reads probes with them first). Types only:
 * bodyEncoder's source is sent to the plugin's thread whole, so the code that uses them is its own.
 */
interface ZlibHandle {
  writeSync(
    flush: number,
    input: Uint8Array,
    inputOffset: number,
    inputLength: number,
    output: Uint8Array,
    outputOffset: number,
    outputLength: number,
  ): void;
  reset(): void;
}

interface KeptStream {
  _handle?: ZlibHandle;
  _writeState?: Uint32Array;
  destroyed?: boolean;
  on(event: string, f: () => void): void;
}

/**
 * Runs the whole of `input` through a kept zlib state into `output` (Z_FINISH) and resets the
 * state: the bytes written; -1 when `output` filled up before the input ended, or the call left
 * no output space or input it said it took (the state reset, still usable: the decoder reads that
 * body the one-shot way, the encoder gives the state up); or null once the state does anything
 * unexpected (then for good).
 */
export type KeptZlibCall = (input: Uint8Array, output: Uint8Array) => number | null;

/**
 * The kept state of a zlib stream of `node:zlib` (bodyEncoder, bodyDecoder): its internal handle,
 * which deflates or inflates a whole buffer synchronously and can be reset with its dictionary,
 * where the stream has one as Node 20 makes it; null otherwise. Self-contained (it names nothing
 * but its parameter and built-ins): its source goes to the plugin's thread with bodyEncoder's.
 */
export function keptZlibCall(stream: unknown): KeptZlibCall | null {
  const kept = stream as KeptStream | undefined;
  const handle = kept?._handle;
  const state = kept?._writeState;
  if (!kept || !handle || typeof handle.writeSync !== 'function' || !(state instanceof Uint32Array))
    return null;
  const Z_FINISH = 4;
  let failed = false;
  // A zlib error destroys the stream during the call that met it, and emits it later.
  kept.on('error', () => (failed = true));
  return (input, output) => {
    if (failed) return null;
    try {
      // (what is left of input and output, as the call leaves it: set to "nothing done" first,
      // so that a call that does not set them is never read as one that finished)
      state[0] = 0;
      state[1] = input.length + 1;
      handle.writeSync(Z_FINISH, input, 0, input.length, output, 0, output.length);
      const availableOut = state[0]!;
      const availableIn = state[1]!;
      if (!failed && kept.destroyed !== true) {
        handle.reset();
        if (availableIn === 0 && availableOut > 0) return output.length - availableOut;
        if (availableOut === 0) return -1;
      }
    } catch {
      // (given up below)
    }
    failed = true;
    return null;
  };
}

/** What bodyEncoder needs of `node:zlib`. */
export interface DeflateModule {
  deflateRawSync(data: string | Uint8Array, options: object): Buffer;
  /** Where it is there, one deflate state is kept for every text (bodyEncoder). */
  createDeflateRaw?(options: object): unknown;
}

/**
 * The encoder of stored bodies, given zlib and DICTIONARY_V1: each text deflated when that is
 * smaller, plain otherwise. Self-contained (it names nothing but its parameters and `Buffer`):
 * the worker that encodes a large write's texts off the main thread (blob-encoder.ts) is given
 * this function's source, so both threads write the same bytes.
 */
export function bodyEncoder(
  zlib: DeflateModule,
  dictionary: Buffer,
  keep: (stream: unknown) => KeptZlibCall | null,
): (text: string) => Buffer {
  // Deflate settings for stored texts, which are small (item data ~1–2 KB, canonical texts
  // less): an 8 KB window and a smaller hash table compress them as well as the defaults
  // (measured on a 1k site's 28k texts: 5.54 MB either way) and a third faster, most of a small
  // deflate's cost being the set-up of its state. Any window, level or strategy inflates them:
  // reading needs no setting. Output is gathered in 1 KB chunks instead of 16 KB ones (the same
  // bytes): a deflated text is a slice of its chunk, and each 16 KB chunk lived outside the heap
  // until the garbage collector met the slice.
  //
  // A text of at most SMALL bytes is deflated at level 1 (no lazy matching) with zlib's fixed
  // Huffman codes instead of codes computed for it: a first build of 10k articles deflates 280k
  // texts on the plugin's thread, most of them under 2 KB, where computing the codes and looking
  // for a better match are much of the cost. Measured on 84k texts of such a build (57 MB):
  // 1 083 ms and 11.89 MB all at the default level, 939 ms and 12.64 MB this way (best of seven
  // runs). A longer text (a whole page's canonical text) keeps the default level and codes of
  // its own, which matter more the longer it is (a 47 KB text: +13 % at level 1).
  const SMALL = 2048;
  const common = { dictionary, windowBits: 13, memLevel: 5, chunkSize: 1024 };
  const Z_FIXED = 4;
  const smallOptions = { ...common, level: 1, strategy: Z_FIXED };
  const zFormat = 0x7a; // 'z'
  const pFormat = 0x70; // 'p'
  // `deflateRawSync` makes a stream, its zlib state and its dictionary for each text, and closes
  // them: on a first build of 10k articles (280k texts) 4 s of the plugin's thread, a quarter of
  // it the stream and the state. Node's stream keeps its state in a handle that deflates a whole
  // buffer synchronously (what `deflateRawSync` itself calls) and can be reset with its
  // dictionary: one handle serves every text of a kind (small or not). Those are Node's internals,
  // so a handle is used only when it is there and writes a probe in the very bytes
  // `deflateRawSync` writes, and is given up for good at the first thing it does otherwise.
  let output = Buffer.allocUnsafe(4096);
  const kept = (
    options: object,
    probeLength: number,
  ): ((bytes: Buffer) => Buffer | null) | null => {
    try {
      const call = keep(zlib.createDeflateRaw?.(options));
      if (!call) return null;
      let failed = false;
      const deflate = (bytes: Buffer): Buffer | null => {
        if (failed) return null;
        // (more than raw deflate's worst case for any memory level: all of it in one call)
        const bound = bytes.length + (bytes.length >> 2) + 64;
        if (output.length < bound) output = Buffer.allocUnsafe(bound);
        const written = call(bytes, output);
        if (written !== null && written > 0) return output.subarray(0, written);
        failed = true;
        return null;
      };
      // Probes that another level, strategy or window writes differently, and a state without
      // the dictionary too: words repeated at every distance, twice (the second after a reset,
      // which must set the dictionary again): `probeLength` characters or a few more.
      const words = ['usage', 'licence', 'fragment', 'section', 'table', 'figure', 'citation'];
      let seed = 1;
      let probe = '';
      while (probe.length < probeLength) {
        seed = (seed * 1103515245 + 12345) % 2147483648;
        probe += `${words[seed % words.length]} ${seed % 251} `;
      }
      for (const text of [probe, probe]) {
        const mine = deflate(Buffer.from(text, 'utf8'));
        if (!mine || !mine.equals(zlib.deflateRawSync(text, options))) return null;
      }
      return deflate;
    } catch {
      return null;
    }
  };
  // (a piece of the probe is at most 32 characters: the small state's probe stays small)
  const keptSmall = kept(smallOptions, SMALL - 32);
  const keptLarge = kept(common, 12_000);
  const withFormat = (format: number, bytes: Uint8Array) => {
    const body = Buffer.allocUnsafe(bytes.length + 1);
    body[0] = format;
    body.set(bytes, 1);
    return body;
  };
  return (text) => {
    const plain = Buffer.from(text, 'utf8');
    const small = plain.length <= SMALL;
    const deflated =
      (small ? keptSmall : keptLarge)?.(plain) ??
      zlib.deflateRawSync(plain, small ? smallOptions : common);
    return deflated.length < plain.length
      ? withFormat(zFormat, deflated)
      : withFormat(pFormat, plain);
  };
}

/**
 * The stored body of `text`: deflated when that is smaller. One deflate state kept for every text
 * here too (bodyEncoder): a whole-site pass drafts and encodes documents on this thread as well
 * (utils/drafting-thread.ts).
 */
export const encodeBlob = bodyEncoder(
  { deflateRawSync, createDeflateRaw },
  DICTIONARY_V1,
  keptZlibCall,
);

/** What bodyDecoder needs of `node:zlib`. */
export interface InflateModule {
  inflateRawSync(data: Uint8Array, options: object): Buffer;
  /** Where it is there, one inflate state is kept for every body (bodyDecoder). */
  createInflateRaw?(options: object): unknown;
}

/**
 * The reader of deflated bodies (format `z`), given zlib and DICTIONARY_V1: their text. As the
 * encoder keeps one deflate state, this keeps one inflate state and resets it after each body,
 * instead of `inflateRawSync`'s stream, state and dictionary made and closed for each: a body of
 * item data inflated in 7–10 µs that way, and the discovery index of a snapshot inflates every
 * version's data (1.4M at 100k articles), a manifest page 500. The state is Node's internal handle
 * (as in bodyEncoder), used only when it is there and reads a probe as `inflateRawSync` does, and
 * given up for good at the first thing it does otherwise. A body whose text is longer than its
 * output buffer is read the one-shot way, the state reset.
 */
export function bodyDecoder(
  zlib: InflateModule,
  dictionary: Buffer,
  keep: (stream: unknown) => KeptZlibCall | null,
): (bytes: Buffer) => string {
  const options = { dictionary };
  // (texts are item data of 1–2 KB and canonical texts; a longer one is read the one-shot way)
  const OUTPUT = 64 * 1024;
  const kept = (): ((bytes: Buffer) => string | null) | null => {
    try {
      const call = keep(zlib.createInflateRaw?.(options));
      if (!call) return null;
      const output = Buffer.allocUnsafe(OUTPUT);
      const inflate = (bytes: Buffer): string | null => {
        const written = call(bytes, output);
        // (-1: a text longer than the output buffer, read the one-shot way)
        return written !== null && written > 0 ? output.toString('utf8', 0, written) : null;
      };
      // Probes: a short body and a long one of the encoder's, each read twice (the second after
      // a reset, which must set the dictionary again), as the one-shot inflate reads them. (Made
      // as bodyEncoder makes its own: that one cannot share a helper, as it is sent to the
      // plugin's thread as its source text alone.)
      const words = ['usage', 'licence', 'fragment', 'section', 'table', 'figure', 'citation'];
      let seed = 7;
      let probe = '';
      while (probe.length < 6_000) {
        seed = (seed * 1103515245 + 12345) % 2147483648;
        probe += `${words[seed % words.length]} ${seed % 251} `;
      }
      for (const text of [probe.slice(0, 300), probe, probe.slice(0, 300), probe]) {
        const body = deflateRawSync(text, options);
        const read = inflate(body);
        if (read !== text || read !== zlib.inflateRawSync(body, options).toString('utf8'))
          return null;
      }
      return inflate;
    } catch {
      return null;
    }
  };
  const keptInflate = kept();
  return (bytes) => keptInflate?.(bytes) ?? zlib.inflateRawSync(bytes, options).toString('utf8');
}

const inflate = bodyDecoder({ inflateRawSync, createInflateRaw }, DICTIONARY_V1, keptZlibCall);

/** The text of a stored body: bytes, or text as earlier releases stored it. */
export function decodeBlob(body: Buffer | string): string {
  if (typeof body === 'string') {
    const format = body.charAt(0);
    if (format === 'p') return body.slice(1);
    if (format === 'z') return inflate(Buffer.from(body.slice(1), 'base64'));
    throw new Error(`stored text of an unknown format "${format}"`);
  }
  const format = String.fromCharCode(body[0] ?? 0);
  if (format === 'p') return body.toString('utf8', 1);
  if (format === 'z') return inflate(body.subarray(1));
  throw new Error(`stored text of an unknown format "${format}"`);
}
