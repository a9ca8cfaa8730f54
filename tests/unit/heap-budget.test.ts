import { describe, expect, it } from 'vitest';
import {
  createHeapBudget,
  fullCollection,
  keepHeapWithinBudget,
  oldSpaceUsed,
  releaseHeapBudget,
  setHeapBudget,
} from '../../server/src/utils/heap-budget';

const MB = 1024 * 1024;

/** A heap whose old generation the test sets; a collection brings it down to `live`. */
function fakeHeap(start: number, live: number) {
  const heap = { used: start, collected: 0 };
  return {
    heap,
    used: () => heap.used,
    collect: () => {
      heap.collected += 1;
      heap.used = live;
    },
  };
}

describe('createHeapBudget', () => {
  it('Given growth within the budget, When checked, Then nothing is collected', () => {
    const { heap, used, collect } = fakeHeap(100 * MB, 100 * MB);
    const budget = createHeapBudget(64 * MB, used, collect);
    expect(budget.check()).toBe(false);
    heap.used = 164 * MB;
    expect(budget.check()).toBe(false);
    expect(heap.collected).toBe(0);
  });

  it('Given growth past the budget, When checked, Then one full collection runs and the budget counts from what it left', () => {
    const { heap, used, collect } = fakeHeap(100 * MB, 110 * MB);
    const budget = createHeapBudget(64 * MB, used, collect);
    budget.check();
    heap.used = 165 * MB;
    expect(budget.check()).toBe(true);
    expect(heap.collected).toBe(1);
    // Counted from the 110 MB the collection left, not from the 100 MB seen first.
    heap.used = 170 * MB;
    expect(budget.check()).toBe(false);
    heap.used = 175 * MB;
    expect(budget.check()).toBe(true);
    expect(heap.collected).toBe(2);
  });

  it('Given a collection V8 made on its own, When checked, Then the budget counts from the smaller heap it left', () => {
    const { heap, used, collect } = fakeHeap(300 * MB, 90 * MB);
    const budget = createHeapBudget(64 * MB, used, collect);
    budget.check();
    heap.used = 95 * MB;
    expect(budget.check()).toBe(false);
    heap.used = 160 * MB;
    expect(budget.check()).toBe(true);
  });

  it('Given a budget of 0 or no way to collect, When the heap grows without bound, Then nothing is asked of V8', () => {
    const off = fakeHeap(100 * MB, 10 * MB);
    const budget = createHeapBudget(0, off.used, off.collect);
    off.heap.used = 4000 * MB;
    expect(budget.check()).toBe(false);
    const none = createHeapBudget(64 * MB, off.used, null);
    none.check();
    off.heap.used = 8000 * MB;
    expect(none.check()).toBe(false);
    expect(off.heap.collected).toBe(0);
  });
});

describe('fullCollection', () => {
  it('Given Node started without --expose-gc, When a collection is asked for, Then it is a real full collection and no gc is left on the global', () => {
    const collect = fullCollection();
    expect(collect).toBeTypeOf('function');
    expect((globalThis as { gc?: unknown }).gc).toBeUndefined();
    // Garbage that survives young collections: objects held until the old generation has them.
    let held: { n: number; text: string }[][] = [];
    for (let i = 0; i < 40; i += 1) {
      held.push(Array.from({ length: 20_000 }, (_, n) => ({ n, text: `garbage ${i}-${n}` })));
    }
    const before = oldSpaceUsed();
    held = [];
    expect(held).toHaveLength(0);
    collect!();
    expect(before - oldSpaceUsed()).toBeGreaterThan(32 * MB);
  });

  it('Given a real heap and a budget, When garbage past it reached the old generation, Then the check collects it', () => {
    const budget = createHeapBudget(16 * MB);
    budget.check();
    let held: string[][] = [];
    for (let i = 0; i < 40; i += 1)
      held.push(Array.from({ length: 20_000 }, (_, n) => `garbage ${i}-${n}`));
    held = [];
    expect(held).toHaveLength(0);
    const before = oldSpaceUsed();
    expect(budget.check()).toBe(true);
    expect(oldSpaceUsed()).toBeLessThan(before);
  });
});

describe('the process budget', () => {
  /** Old-generation garbage of a few tens of MB, dropped before it returns. */
  function makeGarbage(): void {
    let held: string[][] = [];
    for (let i = 0; i < 40; i += 1)
      held.push(Array.from({ length: 20_000 }, (_, n) => `garbage ${i}-${n}`));
    held = [];
    expect(held).toHaveLength(0);
  }

  it('Given two instances in one process, When the first one stops, Then the budget the second set still holds until the second stops', () => {
    const first = {};
    const second = {};
    setHeapBudget(16, first);
    setHeapBudget(16, second);
    keepHeapWithinBudget();
    releaseHeapBudget(first);
    makeGarbage();
    expect(keepHeapWithinBudget()).toBe(true);
    releaseHeapBudget(second);
    makeGarbage();
    expect(keepHeapWithinBudget()).toBe(false);
  });
});
