import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bulkInsert, insertRows, type OnConflict } from '../../server/src/repositories/bulk';
import { repositories } from '../../server/src/repositories';
import {
  FRAGMENT_STATE_UID,
  PENDING_STATE_UID,
} from '../../server/src/repositories/state-repository';
import { bootPlayground, testDatabases, type TestApp } from '../helpers/strapi';

/**
 * The plugin's bulk row writes (repositories/bulk.ts) on each database: prepared single-row
 * inserts on SQLite, multi-row VALUES on MySQL and MariaDB, one array per column on PostgreSQL.
 * Whatever the path, a value is stored as it was given; on PostgreSQL the tables written to are
 * analyzed as they grow.
 */
describe.each(testDatabases())('bulk row writes on %s', (client) => {
  let app: TestApp;
  const TABLE = 'sai_test_bulk_rows';
  const knex = () => app.strapi.db.connection;
  const COLUMNS = ['s', 'n', 'flag', 'doc', 'bytes', 'big', 'f'];
  const BYTES: Record<string, string> = { sqlite: 'blob', postgres: 'bytea', mysql: 'longblob' };

  /** A scratch table with a column of each type the plugin's tables use. */
  const createTable = (name: string) =>
    knex().schema.createTable(name, (t) => {
      t.increments('id');
      t.string('s').unique();
      t.integer('n');
      t.boolean('flag');
      if (client === 'postgres') t.jsonb('doc');
      else t.json('doc');
      t.specificType('bytes', BYTES[client]!);
      t.bigInteger('big');
      t.double('f');
    });

  beforeAll(async () => {
    app = await bootPlayground(client, { env: { PLAYGROUND_SEED: 'false' } });
    await createTable(TABLE);
  });

  afterAll(async () => {
    await knex()
      ?.schema.dropTableIfExists(TABLE)
      .catch(() => undefined);
    await app?.close();
  });

  const write = (rows: unknown[][], conflict?: OnConflict, table = TABLE) =>
    knex().transaction((trx) => insertRows(trx, client, table, COLUMNS, rows, conflict));

  it('stores every value as given, whatever characters a string holds', async () => {
    const strings = [
      'plain',
      'with "quotes"',
      'back\\slash \\" and \\\\',
      '{braces},commas,(parens)',
      'NULL',
      '',
      ' leading and trailing ',
      'ünïcødé ✓ 漢字',
      'line\nbreak\ttab',
    ];
    const rows = strings.map((s, i) => [
      s,
      i,
      i % 2 === 0,
      i === 3 ? null : JSON.stringify({ i, s, list: [1, 'x"y', null] }),
      i === 4 ? null : Buffer.from([0, 255, 34, 92, 123, 44, i]),
      2 ** 40 + i,
      i / 4,
    ]);
    await write(rows);
    const stored = (await knex()(TABLE).select(COLUMNS).orderBy('n')) as Record<string, unknown>[];
    expect(stored).toHaveLength(strings.length);
    stored.forEach((row, i) => {
      expect(row.s).toBe(strings[i]);
      expect(Number(row.n)).toBe(i);
      expect(Boolean(row.flag)).toBe(i % 2 === 0);
      const doc = typeof row.doc === 'string' ? JSON.parse(row.doc) : row.doc;
      expect(doc).toEqual(i === 3 ? null : { i, s: strings[i], list: [1, 'x"y', null] });
      if (i === 4) expect(row.bytes).toBeNull();
      else
        expect(
          Buffer.from(row.bytes as Buffer).equals(Buffer.from([0, 255, 34, 92, 123, 44, i])),
        ).toBe(true);
      expect(Number(row.big)).toBe(2 ** 40 + i);
      expect(Number(row.f)).toBe(i / 4);
    });
    // A row whose unique value is stored already is skipped, the others written
    await write(
      [
        ['plain', 100, true, null, null, 0, 0],
        ['new one', 101, false, null, null, 0, 0],
      ],
      { on: 's' },
    );
    const again = (await knex()(TABLE).select('s', 'n').orderBy('n')) as {
      s: string;
      n: unknown;
    }[];
    expect(again).toHaveLength(strings.length + 1);
    expect(again.find((row) => row.s === 'plain')?.n).toEqual(0);
    expect(again.find((row) => row.s === 'new one')).toBeDefined();
    // Or renews one column of the stored row when it holds less than a bound: 'plain' has n = 0
    const renewN = (n: number, s = 'plain') =>
      write([[s, n, false, null, null, 0, 0]], { on: 's', renew: { column: 'n', below: 10 } });
    const storedAs = async (s: string) =>
      (await knex()(TABLE).where('s', s).select('n', 'flag')) as { n: unknown; flag: unknown }[];
    await renewN(50);
    expect((await storedAs('plain')).map((row) => Number(row.n))).toEqual([50]);
    expect(Boolean((await storedAs('plain'))[0]!.flag)).toBe(true); // the other columns kept
    await renewN(70); // 50 is not below 10: left as it is
    expect((await storedAs('plain')).map((row) => Number(row.n))).toEqual([50]);
    await renewN(102, 'renewed new');
    expect((await storedAs('renewed new')).map((row) => Number(row.n))).toEqual([102]);
    await knex()(TABLE).where('s', 'renewed new').delete();
    // An undefined value is refused, and nothing of its statement is written
    await expect(write([['undefined', undefined, true, null, null, 0, 0]])).rejects.toThrow(
      /undefined/i,
    );
    expect(await knex()(TABLE).where('s', 'undefined')).toEqual([]);
  });

  it.runIf(client === 'postgres')(
    'analyzes a table after 2,000 rows written and again each time the rows written doubled',
    async () => {
      const table = `${TABLE}_growing`;
      await createTable(table);
      // (autovacuum would analyze it on its own a minute later at the earliest; not in this test)
      await knex().raw('alter table ?? set (autovacuum_enabled = false)', [table]);
      try {
        const reltuples = async () =>
          Number(
            (
              (await knex().raw('select reltuples from pg_class where oid = ?::regclass', [
                table,
              ])) as { rows: { reltuples: number }[] }
            ).rows[0]!.reltuples,
          );
        const rows = (from: number, count: number) =>
          Array.from({ length: count }, (_, i) => [
            `row ${from + i}`,
            from + i,
            true,
            null,
            null,
            0,
            0,
          ]);
        await write(rows(0, 1_999), undefined, table);
        expect(await reltuples()).toBeLessThan(0); // never analyzed
        await write(rows(1_999, 1), undefined, table);
        expect(await reltuples()).toBe(2_000);
        // next when 4,000 rows were written
        await write(rows(2_000, 1_999), undefined, table);
        expect(await reltuples()).toBe(2_000);
        await write(rows(3_999, 1), undefined, table);
        expect(await reltuples()).toBe(4_000);
      } finally {
        await knex().schema.dropTableIfExists(table);
      }
    },
  );
  it('writes more rows than one statement takes, each as given, the conflicts as asked', async () => {
    const table = `${TABLE}_many`;
    await createTable(table);
    try {
      const row = (i: number, n = i) => [
        `many ${i}`,
        n,
        i % 3 === 0,
        null,
        Buffer.from([i]),
        i,
        i / 2,
      ];
      // 37 rows: statements of many rows, then the rest one by one
      await write(
        Array.from({ length: 37 }, (_, i) => row(i)),
        undefined,
        table,
      );
      // Again with 40, renewing `n` where it is below 10 (rows 0-9), keeping it elsewhere
      await write(
        Array.from({ length: 40 }, (_, i) => row(i, 100 + i)),
        { on: 's', renew: { column: 'n', below: 10 } },
        table,
      );
      const stored = (await knex()(table).select('s', 'n', 'flag', 'bytes', 'big', 'f')) as {
        s: string;
        n: unknown;
        flag: unknown;
        bytes: Buffer;
        big: unknown;
        f: unknown;
      }[];
      expect(stored).toHaveLength(40);
      for (const { s, n, flag, bytes, big, f } of stored) {
        const i = Number(s.slice('many '.length));
        expect(Number(n)).toBe(i < 10 || i >= 37 ? 100 + i : i);
        expect(Boolean(flag)).toBe(i % 3 === 0);
        expect(Buffer.from(bytes).equals(Buffer.from([i]))).toBe(true);
        expect(Number(big)).toBe(i);
        expect(Number(f)).toBe(i / 2);
      }
      // A write that breaks the unique column writes none of its rows
      await expect(
        write(
          Array.from({ length: 20 }, (_, i) => row(i === 19 ? 3 : 1000 + i)),
          undefined,
          table,
        ),
      ).rejects.toThrow();
      expect(await knex()(table).where('s', 'like', 'many 10__')).toEqual([]);
    } finally {
      await knex().schema.dropTableIfExists(table);
    }
  });

  it("inserts rows of a plugin table whatever columns each sets, each row's own values in its own columns", async () => {
    const table = 'sitemap_ai_pending_states';
    const prefix = `bulk-${Date.now()}-`;
    // Runs of rows that set the same columns, a row that leaves one undefined (its default) or
    // sets it null between them, and a row that sets the same number of columns, but others.
    const rows: Record<string, unknown>[] = [
      { item_id: `${prefix}a`, revision: 1, policy_print: 'p1' },
      { item_id: `${prefix}b`, revision: 2, policy_print: 'p2' },
      { item_id: `${prefix}c`, revision: 3, policy_print: undefined },
      { item_id: `${prefix}d`, revision: 4 },
      { item_id: `${prefix}e`, revision: 5, policy_print: null },
      { revision: 6, item_id: `${prefix}f`, policy_print: 'p6' },
      { item_id: `${prefix}g`, policy_print: 'p7' },
    ];
    try {
      await bulkInsert(app.strapi, PENDING_STATE_UID, rows);
      const stored = (await knex()(table)
        .where('item_id', 'like', `${prefix}%`)
        .select('item_id', 'revision', 'policy_print')
        .orderBy('item_id')) as { item_id: string; revision: unknown; policy_print: unknown }[];
      expect(
        stored.map((row) => [
          row.item_id.slice(prefix.length),
          row.revision === null ? null : Number(row.revision),
          row.policy_print,
        ]),
      ).toEqual([
        ['a', 1, 'p1'],
        ['b', 2, 'p2'],
        ['c', 3, null],
        ['d', 4, null],
        ['e', 5, null],
        ['f', 6, 'p6'],
        ['g', null, 'p7'],
      ]);
    } finally {
      await knex()(table).where('item_id', 'like', `${prefix}%`).delete();
    }
  });

  it('lists the documents of live states type by type, in document order, a page at a time to the last', async () => {
    const table = 'sitemap_ai_fragment_states';
    const prefix = `live-${Date.now()}-`;
    // Two types (of made-up uids, which sort before and after every real one), more documents of
    // one than a page lists (1 000), documents with several states, some removed, and documents
    // whose states are all removed (not listed).
    const early = `aaa::${prefix}early`;
    const late = `zzz::${prefix}late`;
    const rows: Record<string, unknown>[] = [];
    const expected: string[] = [];
    const state = (uid: string, document: string, n: number, removed: boolean) =>
      rows.push({
        item_id: `${prefix}${uid}:${document}:${n}`,
        source_uid: uid,
        source_document: document,
        removed,
        revision: 1,
      });
    const earlyDocuments: [string, boolean[]][] = [
      ['doc-b', [false, true]],
      ['doc-a', [true, true]],
      ['doc-c', [true, false, false]],
    ];
    for (const [document, removed] of earlyDocuments) {
      removed.forEach((gone, n) => state(early, document, n, gone));
      if (removed.includes(false)) expected.push(`${early} ${document}`);
    }
    for (let i = 0; i < 2_345; i += 1) {
      const document = `d${String(i).padStart(5, '0')}`;
      const gone = i % 7 === 3;
      state(late, document, 0, gone);
      if (i % 5 === 0) state(late, document, 1, gone);
      if (!gone) expected.push(`${late} ${document}`);
    }
    expected.sort();
    try {
      await bulkInsert(app.strapi, FRAGMENT_STATE_UID, rows);
      const listed: string[] = [];
      for await (const { uid, documentId } of repositories(app.strapi).states.liveDocuments())
        if (uid === early || uid === late) listed.push(`${uid} ${documentId}`);
      expect(listed).toHaveLength(expected.length);
      expect(listed).toEqual(expected);
    } finally {
      await knex()(table).where('item_id', 'like', `${prefix}%`).delete();
    }
  });
});
