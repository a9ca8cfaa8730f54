import { keepHeapWithinBudget } from './heap-budget';

/**
 * Let the event loop turn once: timers fire, requests are read and answered. On SQLite the
 * database driver is synchronous, so a long loop of awaited queries (a first build, a re-compare,
 * a sweep) is otherwise one unbroken chain of promise callbacks, and the server answers no
 * request until it ends — a minute on a site of 10k entries. Called once per batch, it also keeps
 * the heap within the build's budget (heap-budget.ts).
 */
export function turnEventLoop(): Promise<void> {
  keepHeapWithinBudget();
  return new Promise((resolve) => setImmediate(resolve));
}
