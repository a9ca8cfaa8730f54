import { describe, expect, it } from 'vitest';
import {
  CHUNK_LABELS,
  CHUNK_RULES,
  FRAGMENT_STATE_LABELS,
  FRAGMENT_TYPES,
  FRAGMENT_TYPE_LABELS,
  READINESS_LABELS,
  SOURCE_LABELS,
  USAGE_KIND_LABELS,
  USAGE_VALUE_LABELS,
} from '../../admin/src/utils/labels';
import en from '../../admin/src/translations/en.json';
import sk from '../../admin/src/translations/sk.json';
import * as server from '../../shared/constants';
import { READINESS_CHECK_IDS } from '../../server/src/core/readiness';

/* The translation keys of the contract's enums (admin/src/utils/labels.ts) and the lists the Settings page offers. */

const MAPS: Record<string, Record<string, string>> = {
  USAGE_VALUE_LABELS,
  USAGE_KIND_LABELS,
  SOURCE_LABELS,
  FRAGMENT_TYPE_LABELS,
  FRAGMENT_STATE_LABELS,
  CHUNK_LABELS,
  READINESS_LABELS,
};

describe('admin labels', () => {
  it('Given the server’s vocabularies, When the admin labels them, Then every value has a label and there is no extra one', () => {
    expect(Object.keys(USAGE_VALUE_LABELS).sort()).toEqual([...server.USAGE_VALUES].sort());
    expect(Object.keys(USAGE_KIND_LABELS).sort()).toEqual([...server.USAGE_KINDS].sort());
    expect(Object.keys(FRAGMENT_TYPE_LABELS).sort()).toEqual([...server.ITEM_TYPES].sort());
    expect(Object.keys(CHUNK_LABELS).sort()).toEqual([...server.CHUNK_RULES].sort());
    expect(Object.keys(READINESS_LABELS).sort()).toEqual([...READINESS_CHECK_IDS].sort());
    expect(Object.keys(SOURCE_LABELS)).toEqual(['site', 'type', 'entry', 'fragment']);
    expect(Object.keys(FRAGMENT_STATE_LABELS)).toEqual(['new', 'changed', 'unchanged']);
  });

  it('Given the Settings page’s choices, When it lists fragment types and chunk rules, Then they are the server’s, in its order', () => {
    expect([...FRAGMENT_TYPES]).toEqual([...server.FRAGMENT_TYPES]);
    expect([...CHUNK_RULES]).toEqual([...server.CHUNK_RULES]);
  });

  it.each(Object.keys(MAPS))(
    'Given %s, When its keys are looked up, Then each has a message in English and Slovak',
    (name) => {
      const keys = Object.values(MAPS[name]!);
      expect(keys.filter((key) => !(key in en))).toEqual([]);
      expect(keys.filter((key) => !(key in sk))).toEqual([]);
    },
  );

  it.each(Object.keys(MAPS))(
    'Given %s, When its values are compared, Then no two values share one label',
    (name) => {
      const keys = Object.values(MAPS[name]!);
      expect(new Set(keys).size).toBe(keys.length);
    },
  );
});
