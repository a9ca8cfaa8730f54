/** JSON columns come back parsed on PostgreSQL and MariaDB, as text on some drivers. */
export function parseJson<T>(value: unknown, fallback: T): T {
  if (value === null || value === undefined) return fallback;
  if (typeof value === 'string') {
    try {
      return JSON.parse(value) as T;
    } catch {
      return fallback;
    }
  }
  return value as T;
}

export function optionalNumber(value: unknown): number | undefined {
  return value === null || value === undefined ? undefined : Number(value);
}

export const WRITE_BATCH = 200;

/** Characters JSON allows between tokens. */
function isJsonSpace(code: number): boolean {
  return code === 0x20 || code === 0x0a || code === 0x0d || code === 0x09;
}

/** Index just past the string whose opening quote is at `at`; -1 when it is not closed. */
function stringEnd(text: string, at: number): number {
  let quote = text.indexOf('"', at + 1);
  while (quote !== -1) {
    let backslashes = 0;
    while (text.charCodeAt(quote - 1 - backslashes) === 0x5c) backslashes += 1;
    if (backslashes % 2 === 0) return quote + 1;
    quote = text.indexOf('"', quote + 1);
  }
  return -1;
}

/** Index just past the value that starts at `at` (no space before it); -1 when it is not closed. */
function valueEnd(text: string, at: number): number {
  const first = text.charCodeAt(at);
  if (first === 0x22) return stringEnd(text, at);
  if (first === 0x7b || first === 0x5b) {
    let depth = 0;
    for (let i = at; i < text.length; i += 1) {
      const code = text.charCodeAt(i);
      if (code === 0x22) {
        i = stringEnd(text, i) - 1;
        if (i < 0) return -1;
      } else if (code === 0x7b || code === 0x5b) depth += 1;
      else if (code === 0x7d || code === 0x5d) {
        depth -= 1;
        if (depth === 0) return i + 1;
      }
    }
    return -1;
  }
  // A number, true, false or null: up to what may follow a member's value.
  let i = at;
  while (i < text.length) {
    const code = text.charCodeAt(i);
    if (code === 0x2c || code === 0x7d || code === 0x5d || isJsonSpace(code)) break;
    i += 1;
  }
  return i > at ? i : -1;
}

/**
 * The member `key` of the JSON object `text`, read without building the others: `{ value }`, or
 * `{}` when the object has no such member. The value is what `JSON.parse(text)[key]` gives for
 * any valid JSON object (the last of several members of that name, as JSON.parse keeps it); the
 * other members are only skipped over, not checked. Null when `text` is not an object or is cut
 * short: the caller then parses it whole. (The discovery documents' fold reads only the usage
 * of every fragment's stored item: parsing each item whole was a fifth of the first read of
 * llms-full.txt at 10k articles, which makes the fold.)
 */
export function jsonMember(text: string, key: string): { value?: unknown } | null {
  let i = 0;
  const skipSpace = () => {
    while (i < text.length && isJsonSpace(text.charCodeAt(i))) i += 1;
  };
  skipSpace();
  if (text.charCodeAt(i) !== 0x7b) return null;
  i += 1;
  skipSpace();
  let span: [number, number] | null = null;
  if (text.charCodeAt(i) === 0x7d) i += 1;
  else
    for (;;) {
      if (text.charCodeAt(i) !== 0x22) return null;
      const keyEnd = stringEnd(text, i);
      if (keyEnd < 0) return null;
      const raw = text.slice(i + 1, keyEnd - 1);
      let name = raw;
      if (raw.includes('\\')) {
        try {
          name = JSON.parse(`"${raw}"`) as string;
        } catch {
          return null;
        }
      }
      i = keyEnd;
      skipSpace();
      if (text.charCodeAt(i) !== 0x3a) return null;
      i += 1;
      skipSpace();
      const end = valueEnd(text, i);
      if (end < 0) return null;
      if (name === key) span = [i, end];
      i = end;
      skipSpace();
      const next = text.charCodeAt(i);
      i += 1;
      if (next === 0x7d) break;
      if (next !== 0x2c) return null;
      skipSpace();
    }
  skipSpace();
  if (i !== text.length) return null;
  if (!span) return {};
  try {
    return { value: JSON.parse(text.slice(span[0], span[1])) as unknown };
  } catch {
    return null;
  }
}
