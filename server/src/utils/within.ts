/**
 * `promise`'s value if it settles within `ms` (a rejection within it is thrown), else undefined at
 * once for `ms` ≤ 0 or when the time is up. The promise goes on either way; a failure after the
 * wait ended goes to `onLateFailure` (ignored without one).
 */
export async function within<T>(
  promise: Promise<T>,
  ms: number,
  onLateFailure: (error: unknown) => void = () => undefined,
): Promise<T | undefined> {
  if (ms <= 0) {
    promise.catch(onLateFailure);
    return undefined;
  }
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<undefined>((resolve) => {
    timer = setTimeout(resolve, ms, undefined);
  });
  try {
    const value = await Promise.race([promise, timeout]);
    if (value === undefined) promise.catch(onLateFailure);
    return value;
  } finally {
    clearTimeout(timer);
  }
}
