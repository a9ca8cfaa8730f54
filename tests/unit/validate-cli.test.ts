import { describe, expect, it } from 'vitest';
import * as cli from '../../server/src/cli/validate';
import { changelogProblem } from '../../server/src/core/readiness';

describe('sitemap-ai-validate arguments', () => {
  it('Given a base URL, Then the API prefix is added once', () => {
    expect(cli.parseArgs(['http://localhost:1337']).api).toBe(
      'http://localhost:1337/api/sitemap-ai',
    );
    expect(cli.parseArgs(['https://cms.example.com/api/sitemap-ai/']).api).toBe(
      'https://cms.example.com/api/sitemap-ai',
    );
    expect(cli.parseArgs(['https://cms.example.com/?x=1#y', '--prefix', '/v2/ai']).api).toBe(
      'https://cms.example.com/v2/ai',
    );
  });

  it('Given flags, Then they are read in either form', () => {
    expect(
      cli.parseArgs([
        'http://a.test',
        '--all',
        '--json',
        '--strict',
        '--sample=7',
        '--limit',
        '200',
      ]),
    ).toMatchObject({
      all: true,
      json: true,
      strict: true,
      sample: 7,
      limit: 200,
    });
  });

  it.each([
    [[]],
    [['ftp://a.test']],
    [['not a url']],
    [['http://a.test', '--sample', '0']],
    [['http://a.test', '--bogus']],
    [['http://a.test', 'http://b.test']],
    [['http://a.test', '--limit']],
  ])('Given bad usage %j, Then it throws a usage error', (argv) => {
    expect(() => cli.parseArgs(argv)).toThrow();
  });

  it('Given a sample size, Then the indices are spread over the manifest and repeat from run to run', () => {
    expect(cli.sampleIndices(10, 3)).toEqual([0, 3, 6]);
    expect(cli.sampleIndices(3, 50)).toEqual([0, 1, 2]);
    expect(new Set(cli.sampleIndices(14_000, 50)).size).toBe(50);
  });

  it('Given a stream shorter than twice the sample, Then SpreadSample picks what sampleIndices picks of it', () => {
    for (const total of [0, 3, 50, 99]) {
      const sample = new cli.SpreadSample<number>(50);
      for (let i = 0; i < total; i += 1) sample.add(i);
      expect(sample.values()).toEqual(cli.sampleIndices(total, 50));
    }
  });

  it('Given the 1.4M items of a 100k-article site, Then SpreadSample picks 50 spread over all of them, the same from run to run', () => {
    const run = () => {
      const sample = new cli.SpreadSample<number>(50);
      for (let i = 0; i < 1_400_000; i += 1) sample.add(i);
      return sample.values();
    };
    const picked = run();
    expect(picked).toHaveLength(50);
    expect(picked[0]).toBe(0);
    // Spread: no gap between two picks (or after the last) wider than twice an even share.
    const gaps = picked.slice(1).map((value, i) => value - picked[i]!);
    gaps.push(1_400_000 - picked[picked.length - 1]!);
    expect(Math.max(...gaps)).toBeLessThanOrEqual((2 * 1_400_000) / 50);
    expect(Math.min(...gaps)).toBeGreaterThan(0);
    expect(run()).toEqual(picked);
  });

  it('Given a page changed recently without a changelog entry, Then it reports it the way the server does', () => {
    // The CLI runs core's readiness tally: its changelog check is the server's function.
    const now = new Date('2026-11-30T00:00:00Z');
    const page = { type: 'article' as const, version: 'v2.0', modified: '2026-11-20T00:00:00Z' };
    expect(
      changelogProblem(
        { ...page, changelog: [{ date: '2026-11-20T00:00:00Z', version: 'v2.0', desc: 'x' }] },
        now,
      ),
    ).toBeNull();
    expect(changelogProblem({ ...page, changelog: [] }, now)).toMatch(/no changelog entry/);
    expect(
      changelogProblem({ ...page, modified: '2026-01-01T00:00:00Z', changelog: [] }, now),
    ).toBeNull();
  });
});
