import { describe, expect, it } from 'vitest';
import { within } from '../../server/src/utils/within';

const later = <T>(ms: number, value: T) =>
  new Promise<T>((resolve) => setTimeout(resolve, ms, value));
const failLater = (ms: number, message: string) =>
  new Promise<never>((_, reject) => setTimeout(() => reject(new Error(message)), ms));

describe('within', () => {
  it('Given a promise that settles in time, When waited for, Then its value (or its failure) comes back', async () => {
    await expect(within(later(5, 'done'), 1000)).resolves.toBe('done');
    await expect(within(failLater(5, 'broken'), 1000)).rejects.toThrow('broken');
  });

  it('Given a promise slower than the wait, When the time is up, Then undefined comes back and its later failure is reported', async () => {
    const late: unknown[] = [];
    const started = Date.now();
    expect(await within(failLater(80, 'late'), 10, (error) => late.push(error))).toBeUndefined();
    expect(Date.now() - started).toBeLessThan(80);
    expect(late).toEqual([]);
    await later(120, null);
    expect(late.map((e) => (e as Error).message)).toEqual(['late']);
  });

  it('Given a wait of 0, When called, Then it does not wait at all', async () => {
    const late: unknown[] = [];
    expect(await within(Promise.reject(new Error('now')), 0, (e) => late.push(e))).toBeUndefined();
    await later(0, null);
    expect(late).toHaveLength(1);
  });
});
