import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  meanChangeIntervalDays,
  meanDaysForScore,
  revisitAfter,
  stabilityScore,
} from '../../server/src/core/stability';

const NOW = new Date('2025-10-22T09:00:00.000Z');
const DAY = 86_400_000;
const daysBefore = (days: number) => new Date(NOW.getTime() - days * DAY).toISOString();

describe('stability score from a change history (docs/protocol.md §3.2)', () => {
  it('Given a fragment created one day ago, When scored, Then m = 1 and the score is 0.03', () => {
    // intervals: [1 (open)] → m = 1; 1 − e^(−1/30) = 0.0328 → 0.03
    const m = meanChangeIntervalDays([daysBefore(1)], NOW);
    expect(m).toBe(1);
    expect(stabilityScore(m)).toBe(0.03);
    expect(revisitAfter(m)).toBe('P1D');
  });

  it('Given a fragment unchanged for 90 days, When scored, Then the score is 0.95', () => {
    // intervals: [90 (open)] → m = 90; 1 − e^(−3) = 0.9502 → 0.95; revisit = round(90 / 4) = round(22.5) = 23 days
    const m = meanChangeIntervalDays([daysBefore(90)], NOW);
    expect(m).toBe(90);
    expect(stabilityScore(m)).toBe(0.95);
    expect(revisitAfter(m)).toBe('P23D');
  });

  it('Given a fragment edited daily for 30 days, last edit 12 hours ago, When scored, Then the score stays low', () => {
    // 30 changes one day apart: 29 closed intervals of 1 day + the open one of 0.5 day
    // m = (29 × 1 + 0.5) / 30 = 0.98333; 1 − e^(−0.98333/30) = 0.0322 → 0.03
    const history = Array.from({ length: 30 }, (_, i) => daysBefore(0.5 + (29 - i)));
    const m = meanChangeIntervalDays(history, NOW);
    expect(m).toBeCloseTo(29.5 / 30, 10);
    expect(stabilityScore(m)).toBe(0.03);
    expect(stabilityScore(m)).toBeLessThan(0.1);
  });

  it('Given three changes, When the mean is taken, Then the open interval until now counts as one of the intervals', () => {
    // changes 2025-01-01, 2025-01-11, 2025-02-10; now 2025-03-12
    // intervals: 10, 30, and the open one 30 (Feb 10 → Mar 12 in 2025: 18 + 12 days) → m = 70 / 3 = 23.333
    // score: 1 − e^(−23.333/30) = 1 − e^(−0.77778) = 1 − 0.45942 = 0.5406 → 0.54; revisit = round(5.833) = 6 days
    const now = new Date('2025-03-12T00:00:00Z');
    const history = ['2025-01-01T00:00:00Z', '2025-01-11T00:00:00Z', '2025-02-10T00:00:00Z'];
    const m = meanChangeIntervalDays(history, now);
    expect(m).toBeCloseTo(70 / 3, 10);
    expect(stabilityScore(m)).toBe(0.54);
    expect(revisitAfter(m)).toBe('P6D');
  });

  it('Given the same history in another order, When the mean is taken, Then the result is the same', () => {
    const now = new Date('2025-03-12T00:00:00Z');
    const history = ['2025-02-10T00:00:00Z', '2025-01-01T00:00:00Z', '2025-01-11T00:00:00Z'];
    expect(meanChangeIntervalDays(history, now)).toBeCloseTo(70 / 3, 10);
  });

  it('Given unparseable times in the history, When the mean is taken, Then they are ignored', () => {
    expect(meanChangeIntervalDays(['not a date', daysBefore(10), ''], NOW)).toBe(10);
  });

  it('Given an empty history, When scored, Then m = 0 and the score is 0', () => {
    expect(meanChangeIntervalDays([], NOW)).toBe(0);
    expect(stabilityScore(0)).toBe(0);
  });

  it('Given a change after "now" (clock skew), When the mean is taken, Then the open interval is 0, not negative', () => {
    // changes at day −10 and day +2: one interval of 12 days, the open one max(0, −2) = 0 → m = (12 + 0) / 2 = 6
    expect(meanChangeIntervalDays([daysBefore(10), daysBefore(-2)], NOW)).toBe(6);
  });

  it('Given any history, When scored, Then the score is within [0, 1] with at most two decimals (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 3650 }), { maxLength: 50 }), (ages) => {
        const score = stabilityScore(meanChangeIntervalDays(ages.map(daysBefore), NOW));
        expect(score).toBeGreaterThanOrEqual(0);
        expect(score).toBeLessThanOrEqual(1);
        expect(Math.round(score * 100) / 100).toBe(score);
      }),
    );
  });

  it('Given a longer mean interval, When scored, Then the score never decreases (monotone property)', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0, max: 1000, noNaN: true }),
        fc.double({ min: 0, max: 1000, noNaN: true }),
        (a, b) => {
          const [low, high] = a <= b ? [a, b] : [b, a];
          expect(stabilityScore(low)).toBeLessThanOrEqual(stabilityScore(high));
        },
      ),
    );
  });
});

describe('revisitAfter', () => {
  it.each([
    [-5, 'P1D'],
    [0, 'P1D'],
    [2, 'P1D'],
    [6, 'P2D'],
    [28, 'P7D'],
    [120, 'P30D'],
    [360, 'P90D'],
    [364, 'P90D'],
    [10_000, 'P90D'],
  ])('Given m = %d days, When the recrawl interval is derived, Then it is %s', (m, duration) => {
    expect(revisitAfter(m)).toBe(duration);
  });

  it('Given any m, When derived, Then the duration is whole days between 1 and 90 (property)', () => {
    fc.assert(
      fc.property(fc.double({ min: -1e6, max: 1e6, noNaN: true }), (m) => {
        const match = /^P(\d+)D$/.exec(revisitAfter(m));
        expect(match).not.toBeNull();
        const days = Number(match![1]);
        expect(days).toBeGreaterThanOrEqual(1);
        expect(days).toBeLessThanOrEqual(90);
      }),
    );
  });
});

describe('meanDaysForScore', () => {
  it('Given a pinned score of 0.95, When inverted, Then m is about 89.9 days', () => {
    // −30 · ln(1 − 0.95) = −30 · ln(0.05) = 89.87
    expect(meanDaysForScore(0.95)).toBeCloseTo(89.872, 3);
    expect(meanDaysForScore(0)).toBeCloseTo(0, 10);
  });

  it('Given a pin of 1 or more, When inverted, Then m is finite (clamped at 0.999)', () => {
    expect(meanDaysForScore(1)).toBeCloseTo(-30 * Math.log(0.001), 6);
    expect(meanDaysForScore(7)).toBe(meanDaysForScore(1));
    expect(meanDaysForScore(-1)).toBeCloseTo(0, 10);
  });

  it('Given any two-decimal score below 1, When inverted and scored again, Then the same score comes back (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 99 }), (hundredths) => {
        const score = hundredths / 100;
        expect(stabilityScore(meanDaysForScore(score))).toBe(score);
      }),
    );
  });
});
