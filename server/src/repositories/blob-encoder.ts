import { Worker } from 'node:worker_threads';
import { DICTIONARY_V1, bodyEncoder, encodeBlob } from './blob-codec';

/**
 * Encoding a write's texts on a second thread (README "Storage"). Deflating a small text costs
 * ~45 µs, most of it the set-up of the deflate state with its dictionary: a first build of 10k
 * articles stores 280k texts, 13 s of its main thread. A write hands its texts to one worker
 * thread and goes on with its rows (the states, versions and changelog need only the texts'
 * keys), then stores the bodies the worker sent back: on a machine of two cores the deflating
 * runs beside the inserts instead of before them.
 *
 * Fewer texts than WORKER_MIN are encoded where they are written (the round trip would cost more
 * than it saves, and an editor's publish waits for no thread). When the worker fails or is
 * stopped, what it was asked is encoded on the calling thread: a write never fails for it.
 */
const WORKER_MIN = 256;

/**
 * The most characters of text one message hands the worker; a longer write goes in several, and
 * a text longer than this alone is encoded where it is written. With the bounds of the worker's
 * heap below, whatever a site writes fits in it.
 */
export const MESSAGE_CHARS = 4_000_000;

/**
 * The worker's heap, bounded. Left to V8's defaults, a worker sizes its young generation as the
 * main thread does: on a first build of 10k articles (bench-site.js, SQLite, one process) the
 * process grew by +152 … +161 MB at its peak; with these bounds by +113 … +130 MB, no slower
 * (20.2–23.2 s against 20.5–25.6 s). One message needs a few MB; if the worker ran out of heap
 * all the same, it stops, and what it was asked is encoded on the calling thread.
 */
const WORKER_HEAP = { maxYoungGenerationSizeMb: 4, maxOldGenerationSizeMb: 64 };

/**
 * The worker's program: the same encoder as the main thread's (bodyEncoder's own source), its
 * bodies sent back in one transferred buffer with their lengths instead of one copied buffer each.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const encode = (${bodyEncoder.toString()})(require('node:zlib'), Buffer.from(workerData.dictionary));
parentPort.on('message', ({ id, texts }) => {
  const bodies = texts.map(encode);
  const lengths = new Uint32Array(bodies.length);
  let size = 0;
  bodies.forEach((body, i) => { lengths[i] = body.length; size += body.length; });
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const body of bodies) { bytes.set(body, at); at += body.length; }
  parentPort.postMessage({ id, bytes, lengths }, [bytes.buffer, lengths.buffer]);
});
`;

interface Encoder {
  worker: Worker;
  waiting: Map<number, { resolve(bodies: Buffer[]): void; reject(error: Error): void }>;
}

let encoder: Encoder | null = null;
let nextId = 0;

/** The worker, started on first use; it keeps the process alive only while it has work. */
function running(): Encoder {
  if (encoder) return encoder;
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: { dictionary: new Uint8Array(DICTIONARY_V1) },
    resourceLimits: WORKER_HEAP,
  });
  worker.unref();
  const started: Encoder = { worker, waiting: new Map() };
  worker.on(
    'message',
    ({ id, bytes, lengths }: { id: number; bytes: Uint8Array; lengths: Uint32Array }) => {
      const request = started.waiting.get(id);
      if (!request) return;
      started.waiting.delete(id);
      if (started.waiting.size === 0) worker.unref();
      const bodies: Buffer[] = [];
      let at = 0;
      for (const length of lengths) {
        bodies.push(Buffer.from(bytes.buffer, bytes.byteOffset + at, length));
        at += length;
      }
      request.resolve(bodies);
    },
  );
  const fail = (error: Error) => {
    if (encoder === started) encoder = null;
    for (const request of started.waiting.values()) request.reject(error);
    started.waiting.clear();
  };
  worker.on('error', fail);
  worker.on('exit', (code) => fail(new Error(`the text encoder stopped (exit code ${code})`)));
  encoder = started;
  return started;
}

/** The bodies one message asks the worker for. */
function askWorker(texts: readonly string[]): Promise<Buffer[]> {
  const { worker, waiting } = running();
  const id = nextId++;
  const bodies = new Promise<Buffer[]>((resolve, reject) => waiting.set(id, { resolve, reject }));
  worker.ref();
  worker.postMessage({ id, texts });
  return bodies;
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

/**
 * Stop the worker (the plugin's destroy); a later write starts another. What it was still asked
 * is encoded by its callers. Whether a worker was running.
 */
export async function stopBlobEncoder(): Promise<boolean> {
  const stopping = encoder;
  encoder = null;
  if (!stopping) return false;
  await stopping.worker.terminate();
  return true;
}
