import fs from 'node:fs';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { DICTIONARY_V1, bodyEncoder, keptZlibCall } from '../repositories/blob-codec';

/**
 * The plugin's second thread (README "Storage"): one worker that deflates the stored texts of
 * large writes (repositories/blob-encoder.ts) and drafts the documents of a whole-site pass ahead
 * of the batch being written (utils/drafting-thread.ts), so that on a machine of two cores that
 * work runs beside the main thread's database work. One thread for both: each Node worker costs
 * its own isolate, heap and modules (a second one added 25 MB to a 10k first build's peak RSS).
 *
 * Started on first use, it keeps the process alive only while it has work. When it fails or is
 * stopped, what it was asked is rejected and its callers do the work on their own thread.
 */

/**
 * The worker's heap, bounded. Left to V8's defaults, a worker sizes its young generation as the
 * main thread does: on a first build of 10k articles (bench-site.js, SQLite, one process) the
 * process grew by +152 … +161 MB at its peak; with a young generation of 4 MB by +113 … +130 MB,
 * no slower (20.2–23.2 s against 20.5–25.6 s). A larger one collects less often: drafting and
 * encoding 10k such articles took 1.26–1.37 s of collections at 4 MB (2 075 of them), 0.97–1.13 s
 * at 8 MB, 0.80–0.88 s at 16 MB, a few per cent of a first build's CPU; but 16 MB grew a 10k first
 * build's peak by ~15 MB and 8 MB a 100k one's to +145 MB (+131 … +137 MB at 4 MB), too close to
 * the 150 MB the plugin holds a build to. One message needs a few MB; if the worker ran out of
 * heap all the same, it stops, and what it was asked is done on the calling thread.
 */
const WORKER_HEAP = { maxYoungGenerationSizeMb: 4, maxOldGenerationSizeMb: 64 };

/**
 * The package's bundle of workers/drafting.ts, next to the server's bundle (scripts/
 * build-plugin.js). Absent when the server runs from its sources: nothing is drafted here then.
 */
const DRAFTING_FILE = 'drafting.js';

/**
 * The worker's program: the main thread's text encoder (bodyEncoder's own source, and that of the
 * kept zlib state it is given), its bodies sent back in one transferred buffer with their lengths
 * instead of one copied buffer each; and, loaded on the first batch to draft, the drafting bundle.
 *
 * Texts to encode go before documents to draft. A whole-site pass posts the next batch to draft
 * while it writes the batch before, whose write then waits for its texts: answered in turn, they
 * waited for the whole next batch to be drafted (on a first build of 10k articles the main thread
 * waited ~3 s for texts in all). Between two documents the thread takes the messages that came
 * meanwhile (receiveMessageOnPort): texts are encoded at once, batches to draft wait their turn.
 * A batch asked with `encodeContents` (a first build's, whose items are all new) is answered with
 * its drafts' canonical texts encoded and keyed too (the key from the draft's checksum, the same
 * hash), so that its write has only the item data left to ask, and hashes no canonical text. Each
 * document's are encoded as soon as it is drafted: a document the main thread drafts in the
 * thread's place (its `claims`) is encoded there, the whole of it. A fresh document (DraftRequest
 * `fresh`) is answered with the states to write, and each state's data is encoded too, from the
 * very object the answer carries.
 */
const WORKER_SOURCE = `
const { parentPort, workerData, receiveMessageOnPort } = require('node:worker_threads');
const encode = (${bodyEncoder.toString()})(
  require('node:zlib'),
  Buffer.from(workerData.dictionary),
  ${keptZlibCall.toString()},
);
let drafting;
const toDraft = [];
function packed(bodies) {
  const lengths = new Uint32Array(bodies.length);
  let size = 0;
  bodies.forEach((body, i) => { lengths[i] = body.length; size += body.length; });
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const body of bodies) { bytes.set(body, at); at += body.length; }
  return { bytes, lengths };
}
function answerTexts({ id, texts }) {
  const { bytes, lengths } = packed(texts.map(encode));
  parentPort.postMessage({ id, bytes, lengths }, [bytes.buffer, lengths.buffer]);
}
function takeWaiting() {
  for (let received; (received = receiveMessageOnPort(parentPort)); ) {
    if (received.message.kind === 'draft') toDraft.push(received.message);
    else answerTexts(received.message);
  }
}
function answerDraft(message) {
  // (a bundle that cannot be loaded answers each batch with why: the caller drafts it)
  try {
    if (!workerData.draftingFile) throw new Error('no drafting bundle');
    drafting ??= require(workerData.draftingFile);
  } catch (error) {
    parentPort.postMessage({ id: message.id, error: String(error) });
    return;
  }
  const bodies = [];
  const keys = [];
  const data = [];
  const answer = drafting.draftBatch(message, (drafts, writes) => {
    if (message.encodeContents && writes)
      for (const { state } of writes) {
        bodies.push(encode(state.content));
        keys.push(drafting.blobKeyOfChecksum(state.checksum));
        data.push(encode(JSON.stringify(state.data)));
      }
    else if (message.encodeContents)
      for (const draft of drafts) {
        bodies.push(encode(draft.content));
        keys.push(drafting.blobKeyOfChecksum(draft.checksum));
      }
    takeWaiting();
  });
  if (!message.encodeContents || !answer.documents) return parentPort.postMessage(answer);
  answer.contents = packed(bodies);
  answer.contentKeys = keys;
  answer.data = packed(data);
  parentPort.postMessage(answer, [
    answer.contents.bytes.buffer,
    answer.contents.lengths.buffer,
    answer.data.bytes.buffer,
    answer.data.lengths.buffer,
  ]);
}
parentPort.on('message', (message) => {
  if (message.kind === 'draft') toDraft.push(message);
  else answerTexts(message);
  while (toDraft.length > 0) answerDraft(toDraft.shift());
});
`;

/** Bodies the thread sent end to end in one transferred buffer, with their lengths. */
export interface PackedBodies {
  bytes: Uint8Array;
  lengths: Uint32Array;
}

/** The bodies of a PackedBodies, in order: views of its buffer, not copies. */
export function unpacked({ bytes, lengths }: PackedBodies): Buffer[] {
  const bodies: Buffer[] = [];
  let at = 0;
  for (const length of lengths) {
    bodies.push(Buffer.from(bytes.buffer, bytes.byteOffset + at, length));
    at += length;
  }
  return bodies;
}

interface Running {
  worker: Worker;
  waiting: Map<number, { resolve(answer: unknown): void; reject(error: Error): void }>;
}

let running: Running | null = null;
let nextId = 0;

let drafting: string | null | undefined;

/**
 * The drafting bundle the thread loads from now on: `file`, or with `undefined` the one next to
 * this module's bundle (the default). Tests give theirs; a running thread keeps its own.
 */
export function useDraftingFile(file: string | null | undefined): void {
  drafting = file;
}

/** The drafting bundle next to this module's bundle, if there is one (looked for once). */
export function draftingFile(): string | null {
  if (drafting === undefined) {
    const file = typeof __dirname === 'string' ? path.join(__dirname, DRAFTING_FILE) : null;
    drafting = file && fs.existsSync(file) ? file : null;
  }
  return drafting;
}

function started(): Running {
  if (running) return running;
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: { dictionary: new Uint8Array(DICTIONARY_V1), draftingFile: draftingFile() },
    resourceLimits: WORKER_HEAP,
  });
  worker.unref();
  const thread: Running = { worker, waiting: new Map() };
  worker.on('message', (answer: { id: number }) => {
    const request = thread.waiting.get(answer.id);
    if (!request) return;
    thread.waiting.delete(answer.id);
    if (thread.waiting.size === 0) worker.unref();
    request.resolve(answer);
  });
  const fail = (error: Error) => {
    if (running === thread) running = null;
    for (const request of thread.waiting.values()) request.reject(error);
    thread.waiting.clear();
  };
  worker.on('error', fail);
  worker.on('exit', (code) => fail(new Error(`the plugin's thread stopped (exit code ${code})`)));
  running = thread;
  return thread;
}

/**
 * Ask the thread: `message` with an `id` of its own added, answered by the message of that id.
 * Rejected when the thread cannot start, or stops or fails before it answers.
 */
export function askThread<T>(message: object, transfer: readonly ArrayBuffer[] = []): Promise<T> {
  let thread: Running;
  try {
    thread = started();
  } catch (error) {
    return Promise.reject(error instanceof Error ? error : new Error(String(error)));
  }
  const id = nextId++;
  return new Promise<T>((resolve, reject) => {
    thread.waiting.set(id, { resolve: resolve as (answer: unknown) => void, reject });
    thread.worker.ref();
    try {
      thread.worker.postMessage({ ...message, id }, [...transfer]);
    } catch (error) {
      // (what cannot be cloned is never sent)
      thread.waiting.delete(id);
      if (thread.waiting.size === 0) thread.worker.unref();
      reject(error instanceof Error ? error : new Error(String(error)));
    }
  });
}

/**
 * Stop the thread (the plugin's destroy); a later request starts another. What it was still asked
 * is done by its callers. Whether a thread was running.
 */
export async function stopPluginThread(): Promise<boolean> {
  const stopping = running;
  running = null;
  if (!stopping) return false;
  await stopping.worker.terminate();
  return true;
}
