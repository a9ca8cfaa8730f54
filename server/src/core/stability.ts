import {
  DAY_MS,
  REVISIT_MAX_DAYS,
  REVISIT_MIN_DAYS,
  STABILITY_SCALE_DAYS,
} from '../../../shared/constants';

/**
 * Mean length in days of the intervals between consecutive content changes,
 * the open interval from the last change until `now` counted as one of them
 * (docs/protocol.md §3.2). `changes` are ISO times, in any order.
 */
export function meanChangeIntervalDays(changes: readonly string[], now: Date): number {
  const times = changes
    .map((c) => Date.parse(c))
    .filter((t) => Number.isFinite(t))
    .sort((a, b) => a - b);
  if (times.length === 0) return 0;
  const intervals: number[] = [];
  for (let i = 1; i < times.length; i += 1) intervals.push(times[i]! - times[i - 1]!);
  intervals.push(Math.max(0, now.getTime() - times[times.length - 1]!));
  const mean = intervals.reduce((sum, v) => sum + v, 0) / intervals.length;
  return mean / DAY_MS;
}

/** `1 − exp(−m / 30)`, rounded to two decimals (docs/protocol.md §3.2). */
export function stabilityScore(meanDays: number): number {
  const score = 1 - Math.exp(-Math.max(0, meanDays) / STABILITY_SCALE_DAYS);
  return Math.round(score * 100) / 100;
}

/**
 * Suggested recrawl interval as an ISO-8601 duration, derived from m: about a
 * quarter of the mean interval, at least a day, at most 90 days.
 */
export function revisitAfter(meanDays: number): string {
  const days = Math.min(REVISIT_MAX_DAYS, Math.max(REVISIT_MIN_DAYS, Math.round(meanDays / 4)));
  return `P${days}D`;
}

/** Inverse of stabilityScore, for a pinned score: the m it stands for. */
export function meanDaysForScore(score: number): number {
  const clamped = Math.min(0.999, Math.max(0, score));
  return -STABILITY_SCALE_DAYS * Math.log(1 - clamped);
}
