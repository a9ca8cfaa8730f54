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
