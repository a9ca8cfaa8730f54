import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { IntlMessageFormat } from 'intl-messageformat';
import { describe, expect, it } from 'vitest';
import en from '../../admin/src/translations/en.json';
import sk from '../../admin/src/translations/sk.json';
import { getTranslation } from '../../admin/src/utils/getTranslation';

/*
 * Every visible string of the admin goes through a translation id (STYLE
 * "Admin"): `t('<key>')` from hooks/useTranslate.ts, which asks react-intl for
 * `sitemap-ai.<key>` (utils/getTranslation.ts) with en.json as the default,
 * and registerTrads (admin/src/index.ts) registers `<locale>.json` under the
 * same prefix. Keys also live in maps typed `MessageKey` and in the
 * `MetadataProblem` union; they are collected from the source here.
 */

const ADMIN_SRC = join(__dirname, '..', '..', 'admin', 'src');
const LOCALES: Record<string, Record<string, string>> = { en, sk };

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return /\.(ts|tsx)$/.test(name) ? [path] : [];
  });
}

/** Translation keys used in admin/src, each with the file it is used in. */
function usedKeys(): Map<string, string> {
  const found = new Map<string, string>();
  const add = (key: string, file: string) => {
    if (!found.has(key)) found.set(key, relative(ADMIN_SRC, file));
  };
  for (const file of sourceFiles(ADMIN_SRC)) {
    const source = readFileSync(file, 'utf8');
    // t('fields.reason'), t("x", { … }), getTranslation('plugin.name'), also across a line break.
    for (const match of source.matchAll(/\b(?:t|getTranslation)\(\s*(['"])([^'"]+)\1/g))
      add(match[2]!, file);
    // Maps whose values are message keys: `const X: Record<…, MessageKey> = { … };` (also `{ label: MessageKey; … }`).
    for (const block of source.matchAll(
      /:\s*Record<[^=]*\bMessageKey\b[^=]*=\s*\{([\s\S]*?)\n\};/g,
    )) {
      for (const match of block[1]!.matchAll(/:\s*'([^']*\.[^']*)'/g)) add(match[1]!, file);
    }
    // The problems validateOverride reports: `export type MetadataProblem = | 'validation.x' | …;`.
    for (const union of source.matchAll(/type MetadataProblem =([^;]*);/g)) {
      for (const match of union[1]!.matchAll(/'([^']+)'/g)) add(match[1]!, file);
    }
  }
  return found;
}

describe('admin translations', () => {
  it('Given the English and Slovak files, When their keys are compared, Then they have exactly the same keys', () => {
    const missingInSk = Object.keys(en).filter((key) => !(key in sk));
    const missingInEn = Object.keys(sk).filter((key) => !(key in en));
    expect({ missingInSk, missingInEn }).toEqual({ missingInSk: [], missingInEn: [] });
  });

  it.each(Object.keys(LOCALES))(
    'Given the %s file, When its messages are read, Then none is empty or only spaces',
    (locale) => {
      const empty = Object.entries(LOCALES[locale]!).filter(
        ([, message]) => typeof message !== 'string' || message.trim() === '',
      );
      expect(empty).toEqual([]);
    },
  );

  it('Given the admin source, When the translation ids it uses are collected, Then the collector finds the known kinds of use', () => {
    const used = usedKeys();
    // Sanity of the collector itself: a literal t(…) call, getTranslation(…), a label map, a component's map, the problem union.
    expect(used.get('fields.reason')).toBe(join('components', 'EntryPanel.tsx'));
    expect(used.get('settings.link')).toBe('index.ts');
    expect(used.get('readiness.schema-valid')).toBe(join('utils', 'labels.ts'));
    expect(used.get('snapshots.trigger.schedule')).toBe(join('components', 'SnapshotsTable.tsx'));
    expect(used.get('deliveries.status.failed')).toBe(join('components', 'DeliveriesTable.tsx'));
    expect(used.get('validation.tooMany')).toBe(join('utils', 'metadata.ts'));
    expect(used.size).toBeGreaterThan(150);
  });

  it.each(Object.keys(LOCALES))(
    'Given every translation id used in admin/src, When it is looked up in %s, Then it exists',
    (locale) => {
      const messages = LOCALES[locale]!;
      const missing = [...usedKeys()]
        .filter(([key]) => !(key in messages))
        .map(([key, file]) => `${key} (${file})`);
      expect(missing).toEqual([]);
    },
  );

  it('Given a key, When its full id is built, Then it carries the plugin prefix registerTrads registers', () => {
    expect(getTranslation('fields.reason')).toBe('sitemap-ai.fields.reason');
  });
});

/* ------------------------------------------------------------------ */
/* ICU syntax, with react-intl's own parser (intl-messageformat)      */
/* ------------------------------------------------------------------ */

interface MessageNode {
  type: number;
  value?: unknown;
  options?: Record<string, { value: MessageNode[] }>;
  children?: MessageNode[];
}

/** The message parsed as react-intl parses it (intl-messageformat is a devDependency: never skipped). */
const astOf = (message: string, locale: string): MessageNode[] =>
  new IntlMessageFormat(message, locale).getAst() as MessageNode[];

/** Argument names of a parsed message: `{count, plural, …}` → count, also inside plural/select branches and tags. */
function argumentsOf(nodes: readonly MessageNode[], into = new Set<string>()): Set<string> {
  for (const node of nodes) {
    // 1 argument, 2 number, 3 date, 4 time, 5 select, 6 plural (@formatjs/icu-messageformat-parser TYPE).
    if (node.type >= 1 && node.type <= 6 && typeof node.value === 'string') into.add(node.value);
    for (const option of Object.values(node.options ?? {})) argumentsOf(option.value, into);
    if (node.children) argumentsOf(node.children, into);
  }
  return into;
}

describe('admin translations: ICU message syntax (intl-messageformat)', () => {
  it.each(Object.keys(LOCALES))(
    'Given every %s message, When it is parsed as react-intl parses it, Then it parses',
    (locale) => {
      const broken = Object.entries(LOCALES[locale]!).flatMap(([key, message]) => {
        try {
          astOf(message, locale);
          return [];
        } catch (error) {
          return [`${key}: ${(error as Error).message}`];
        }
      });
      expect(broken).toEqual([]);
    },
  );

  it('Given a message in both languages, When their arguments are compared, Then the Slovak one takes the same values as the English one', () => {
    const mismatched = Object.keys(en).flatMap((key) => {
      const english = [...argumentsOf(astOf(en[key as keyof typeof en], 'en'))].sort();
      const slovak = [
        ...argumentsOf(astOf((sk as Record<string, string>)[key] ?? '', 'sk')),
      ].sort();
      return english.join() === slovak.join()
        ? []
        : [`${key}: en {${english.join(', ')}} sk {${slovak.join(', ')}}`];
    });
    expect(mismatched).toEqual([]);
  });

  it('Given the parser, When a broken message is parsed, Then it throws (so the checks above can fail)', () => {
    expect(() => new IntlMessageFormat('{count, plural, one {# item}', 'en')).toThrow();
    expect([...argumentsOf(astOf(en['settings.errorCount'], 'en'))]).toEqual(['count']);
  });
});
