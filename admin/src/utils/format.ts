/** `+3 ~1 −0` (added, changed, removed). */
export const formatChanges = (changes: {
  added: number;
  changed: number;
  removed: number;
}): string => `+${changes.added} ~${changes.changed} −${changes.removed}`;

/** `340 ms`, `1.2 s`, `2 min 5 s`. */
export function formatDuration(ms: number): string {
  // Each unit is chosen after rounding, so 59 999 ms reads `1 min 0 s`, not `60.0 s`.
  if (Math.round(ms) < 1000) return `${Math.round(ms)} ms`;
  const tenths = Math.round(ms / 100);
  if (tenths < 600) return `${(tenths / 10).toFixed(1)} s`;
  const seconds = Math.round(ms / 1000);
  return `${Math.floor(seconds / 60)} min ${seconds % 60} s`;
}
