/**
 * Let the event loop turn once: timers fire, requests are read and answered. On SQLite the
 * database driver is synchronous, so a long loop of awaited queries (a first build, a re-compare,
 * a sweep) is otherwise one unbroken chain of promise callbacks, and the server answers no
 * request until it ends — a minute on a site of 10k entries. Called once per batch.
 */
export function turnEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
