import { encodeBlob } from './blob-codec';
import { type PackedBodies, askThread, unpacked } from '../utils/plugin-thread';

/**
 * Encoding a write's texts on a second thread (README "Storage"). Deflating a small text cost
 * ~45 µs when each set up its own deflate state and dictionary (~11 µs now that the encoder keeps
 * one, blob-codec.ts): a first build of 10k articles stores 280k texts, 13 s of its main thread.
 * A write hands its texts to the plugin's thread (utils/plugin-thread.ts) and goes on with its
 * rows (the states, versions and changelog need only the texts' keys), then stores the bodies the
 * thread sent back: on a machine of two cores the deflating runs beside the inserts instead of
 * before them.
 *
 * Fewer texts than WORKER_MIN are encoded where they are written (the round trip would cost more
 * than it saves, and an editor's publish waits for no thread). When the worker fails or is
 * stopped, what it was asked is encoded on the calling thread: a write never fails for it.
 */
const WORKER_MIN = 256;

/**
 * The most characters of text one message hands the worker; a longer write goes in several, and
 * a text longer than this alone is encoded where it is written. With the bounds of the thread's
 * heap, whatever a site writes fits in it.
 */
export const MESSAGE_CHARS = 4_000_000;

/** The bodies one message asks the plugin's thread for. */
async function askWorker(texts: readonly string[]): Promise<Buffer[]> {
  return unpacked(await askThread<PackedBodies>({ kind: 'encode', texts }));
}

/** The stored bodies of `texts`, in order (blob-codec's encodeBlob of each). */
export async function encodeBodies(texts: readonly string[]): Promise<Buffer[]> {
  if (texts.length < WORKER_MIN) return texts.map(encodeBlob);
  const bodies = new Array<Buffer>(texts.length);
  // Consecutive texts of at most MESSAGE_CHARS characters a message, by their positions.
  const messages: number[][] = [];
  let current: number[] = [];
  let chars = 0;
  texts.forEach((text, i) => {
    if (text.length > MESSAGE_CHARS) {
      bodies[i] = encodeBlob(text);
      return;
    }
    if (chars + text.length > MESSAGE_CHARS && current.length > 0) {
      messages.push(current);
      current = [];
      chars = 0;
    }
    current.push(i);
    chars += text.length;
  });
  if (current.length > 0) messages.push(current);
  try {
    const answers = await Promise.all(
      messages.map((positions) => askWorker(positions.map((i) => texts[i]!))),
    );
    answers.forEach((answer, m) => messages[m]!.forEach((i, k) => (bodies[i] = answer[k]!)));
    return bodies;
  } catch {
    // The worker could not start or stopped: what it did not answer is encoded here.
    return texts.map((text, i) => bodies[i] ?? encodeBlob(text));
  }
}
