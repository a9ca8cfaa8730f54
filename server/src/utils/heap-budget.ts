import v8 from 'node:v8';
import vm from 'node:vm';

/**
 * Keeps the heap of a long build near its live size.
 *
 * A first build on a site of 10k entries allocates gigabytes, nearly all of it garbage of one
 * batch; what a batch holds while its statements run reaches V8's old generation, and V8, whose
 * heap limit is gigabytes, lets that generation grow to several times the live heap before a
 * full collection (measured: a live heap of ~100 MB, a peak of 100–330 MB more, from run to run
 * as V8 decided). Between batches the plugin looks at how far the old generation has grown since
 * the last full collection and, past the budget, asks for one: the peak is then the live heap,
 * the budget and the young generation, whenever V8 would have collected.
 *
 * The heap is the process's, so the budget is too (`buildHeapBudgetMb`, set at start-up; the
 * last instance started in a process sets it).
 */

const MB = 1024 * 1024;

/** Heap spaces that only a full collection empties (the young generation collects itself). */
const YOUNG_SPACES = new Set(['new_space', 'new_large_object_space']);

/** Bytes in the heap's old spaces now. */
export function oldSpaceUsed(): number {
  let used = 0;
  for (const space of v8.getHeapSpaceStatistics())
    if (!YOUNG_SPACES.has(space.space_name)) used += space.space_used_size;
  return used;
}

let collector: (() => void) | null | undefined;

/**
 * A full garbage collection, if the runtime lets one be asked for: `gc` when Node was started
 * with `--expose-gc`, otherwise the same function taken from a fresh context with the flag set
 * only while that context is made (no other code sees a `gc` it did not ask for). `null` where
 * neither works.
 */
export function fullCollection(): (() => void) | null {
  if (collector !== undefined) return collector;
  const exposed = (globalThis as { gc?: unknown }).gc;
  if (typeof exposed === 'function') return (collector = exposed as () => void);
  try {
    v8.setFlagsFromString('--expose-gc');
    const gc: unknown = vm.runInNewContext('gc');
    collector = typeof gc === 'function' ? (gc as () => void) : null;
  } catch {
    collector = null;
  } finally {
    v8.setFlagsFromString('--no-expose-gc');
  }
  return collector;
}

export interface HeapBudget {
  /** Runs a full collection when the old generation has grown past the budget; true if it did. */
  check(): boolean;
}

/**
 * A budget of `budgetBytes` of old-generation growth over the smallest size seen since the last
 * full collection (a collection V8 made on its own lowers it too). 0 turns it off.
 */
export function createHeapBudget(
  budgetBytes: number,
  used: () => number = oldSpaceUsed,
  collect: (() => void) | null = budgetBytes > 0 ? fullCollection() : null,
): HeapBudget {
  let floor = Number.POSITIVE_INFINITY;
  return {
    check() {
      if (budgetBytes <= 0 || !collect) return false;
      const now = used();
      if (now < floor) floor = now;
      if (now - floor <= budgetBytes) return false;
      collect();
      floor = used();
      return true;
    },
  };
}

const OFF: HeapBudget = createHeapBudget(0);
let current: HeapBudget = OFF;
let owner: object | null = null;

/**
 * Sets the process's budget in MB (0: leave collections to V8) on behalf of `by` (the Strapi
 * instance starting), which becomes the one whose {@link releaseHeapBudget} turns it off.
 */
export function setHeapBudget(megabytes: number, by: object): void {
  current = megabytes > 0 ? createHeapBudget(megabytes * MB) : OFF;
  owner = by;
}

/**
 * Turns the budget off when `by` set it last: an instance stopping in a process where another
 * started after it leaves that one's budget alone.
 */
export function releaseHeapBudget(by: object): void {
  if (owner !== by) return;
  current = OFF;
  owner = null;
}

/** Between two batches of a long loop: a full collection if the heap is past its budget (true). */
export function keepHeapWithinBudget(): boolean {
  return current.check();
}
