import { describe, expect, it } from 'vitest';
import {
  assistantOf,
  decodeDeltaSpan,
  distribution,
  encodeDeltaSpan,
  timeToIndex,
} from '../../server/src/core/geo';
import { toCsv } from '../../shared/geo-csv';

describe('timeToIndex', () => {
  const change = { itemId: 'a:x:en:s', version: 'v2.0', at: '2026-11-01T10:00:00.000Z' };

  it('Given a change and later fetches, When measured, Then each family counts its first fetch of that version or a newer one', () => {
    const result = timeToIndex(
      [change],
      [
        // before the change: not a pickup
        {
          itemId: change.itemId,
          agent: 'GPTBot',
          servedVersion: 'v1.0',
          at: '2026-11-01T09:00:00.000Z',
        },
        // after the change but the old version (a cached copy served): not a pickup
        {
          itemId: change.itemId,
          agent: 'GPTBot',
          servedVersion: 'v1.0',
          at: '2026-11-01T10:30:00.000Z',
        },
        {
          itemId: change.itemId,
          agent: 'GPTBot',
          servedVersion: 'v2.0',
          at: '2026-11-01T11:00:00.000Z',
        },
        {
          itemId: change.itemId,
          agent: 'GPTBot',
          servedVersion: 'v2.0',
          at: '2026-11-01T12:00:00.000Z',
        },
        {
          itemId: change.itemId,
          agent: 'ClaudeBot',
          servedVersion: 'v2.1',
          at: '2026-11-01T10:05:00.000Z',
        },
        { itemId: 'other', agent: 'CCBot', servedVersion: 'v9.0', at: '2026-11-01T10:05:00.000Z' },
      ],
    );
    expect(result).toEqual([
      { agent: 'ClaudeBot', times: [5 * 60_000] },
      { agent: 'GPTBot', times: [60 * 60_000] },
    ]);
  });
});

describe('timeToIndex with deltas', () => {
  it('Given an agent that reads deltas, When a change was first served in a snapshot a delta spans, Then the delta counts as its pickup', () => {
    const change = { itemId: 'x', version: 'v2.0', at: '2026-11-01T10:00:00.000Z', seq: 5 };
    const result = timeToIndex(
      [change, { ...change, itemId: 'unknown-seq', seq: undefined }],
      [],
      [
        // spans (3, 4]: does not hold snapshot 5
        { agent: 'CCBot', since: 3, snapshot: 4, at: '2026-11-01T10:01:00.000Z' },
        // read before the change: not a pickup
        { agent: 'GPTBot', since: 4, snapshot: 5, at: '2026-11-01T09:00:00.000Z' },
        { agent: 'GPTBot', since: 4, snapshot: 6, at: '2026-11-01T10:02:00.000Z' },
        { agent: 'GPTBot', since: 4, snapshot: 6, at: '2026-11-01T10:03:00.000Z' },
      ],
    );
    expect(result).toEqual([{ agent: 'GPTBot', times: [2 * 60_000] }]);
  });

  it('Given a delta span, When stored in the access log columns and read back, Then it is the same span; other values are no span', () => {
    const stored = encodeDeltaSpan({ since: 11, snapshot: 12 });
    expect(decodeDeltaSpan(stored.served, stored.client)).toEqual({ since: 11, snapshot: 12 });
    expect(decodeDeltaSpan('v1.0', null)).toBeNull();
  });
});

describe('distribution', () => {
  it('Given durations, When summarised, Then the nearest-rank median and p90', () => {
    expect(distribution([])).toEqual({ count: 0, median: null, p90: null });
    expect(distribution([5, 1, 3, 2, 4, 6, 7, 8, 9, 10])).toEqual({ count: 10, median: 5, p90: 9 });
  });
});

describe('assistantOf', () => {
  it('Given referrers and utm sources, When classified, Then the known assistants and nothing else', () => {
    expect(assistantOf('https://chatgpt.com/c/123', undefined)).toBe('ChatGPT');
    expect(assistantOf('https://www.perplexity.ai/search?q=x', undefined)).toBe('Perplexity');
    expect(assistantOf(undefined, 'chatgpt.com')).toBe('ChatGPT');
    expect(assistantOf('https://www.google.com/', 'newsletter')).toBeNull();
    expect(assistantOf('not a url', 'Claude')).toBe('Claude');
    expect(assistantOf('https://evil.example/chatgpt.com', undefined)).toBeNull();
  });
});

describe('toCsv', () => {
  it('Given fields with commas, quotes, line breaks and formula starts, When written, Then RFC 4180 quoting and no spreadsheet formula', () => {
    expect(
      toCsv(
        ['a', 'b'],
        [
          ['x,y', 'say "hi"'],
          ['=SUM(A1)', null],
        ],
      ),
    ).toBe('a,b\r\n"x,y","say ""hi"""\r\n"\'=SUM(A1)",\r\n');
  });
});
