import { describe, expect, it } from 'vitest';
import { formatChanges, formatDuration } from '../../admin/src/utils/format';

/* How the dashboard's snapshot table shows a rebuild's changes and duration (admin/src/utils/format.ts). */

describe('formatChanges', () => {
  it('Given a snapshot that added, changed and removed items, When its changes are shown, Then they read +added ~changed −removed', () => {
    expect(formatChanges({ added: 3, changed: 12, removed: 1 })).toBe('+3 ~12 −1');
  });

  it('Given a snapshot without changes, When its changes are shown, Then every count is zero', () => {
    expect(formatChanges({ added: 0, changed: 0, removed: 0 })).toBe('+0 ~0 −0');
  });

  it('Given removed items, When the changes are shown, Then the sign is a real minus (U+2212), not a hyphen', () => {
    expect(formatChanges({ added: 0, changed: 0, removed: 7 }).endsWith('\u22127')).toBe(true);
  });
});

describe('formatDuration', () => {
  it.each([
    [0, '0 ms'],
    [340, '340 ms'],
    [340.4, '340 ms'],
    [999, '999 ms'],
  ])(
    'Given a rebuild of %s ms (under a second), When its duration is shown, Then it is in milliseconds: %s',
    (ms, text) => {
      expect(formatDuration(ms)).toBe(text);
    },
  );

  it.each([
    [1000, '1.0 s'],
    [1234, '1.2 s'],
    [12_340, '12.3 s'],
    [59_900, '59.9 s'],
  ])(
    'Given a rebuild of %s ms (under a minute), When its duration is shown, Then it is in seconds with one decimal: %s',
    (ms, text) => {
      expect(formatDuration(ms)).toBe(text);
    },
  );

  it.each([
    [60_000, '1 min 0 s'],
    [125_000, '2 min 5 s'],
    [3_599_400, '59 min 59 s'],
    [3_600_000, '60 min 0 s'],
  ])(
    'Given a rebuild of %s ms, When its duration is shown, Then it is in minutes and seconds: %s',
    (ms, text) => {
      expect(formatDuration(ms)).toBe(text);
    },
  );

  it.each([
    [999.6, '1.0 s'],
    [59_960, '1 min 0 s'],
    [59_999, '1 min 0 s'],
    [119_600, '2 min 0 s'],
  ])(
    'Given %s ms, just below a unit boundary, When it is shown rounded, Then it moves to the next unit instead of reading "1000 ms" or "60.0 s": %s',
    (ms, text) => {
      expect(formatDuration(ms)).toBe(text);
    },
  );
});
