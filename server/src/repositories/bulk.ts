import type { Core } from '@strapi/strapi';

/** Rows per INSERT: far under every database's bound-parameter limit for the widest table. */
const INSERT_CHUNK = 200;

/** The query builder Strapi's database runs on (knex), as a transaction hands it out. */
type Knex = Core.Strapi['db']['connection'];

/**
 * Run `read` in the caller's transaction when there is one (a query on another connection would
 * wait for it on SQLite's single connection), else on the pool.
 */
export function inCallersTransaction<T>(
  strapi: Core.Strapi,
  read: (knex: Knex) => Promise<T>,
): Promise<T> {
  return strapi.db.inTransaction()
    ? (strapi.db.transaction(({ trx }) => read(trx)) as Promise<T>)
    : read(strapi.db.connection);
}

interface AttributeMeta {
  type?: string;
  columnName?: string;
}

/**
 * What an insert does with a row whose value of the unique column `on` is stored already: skip it,
 * or with `renew`, keep the stored row but set its `column` to the new row's value when the stored
 * one is below `below` (the touch of a stored text, renewed when stale).
 */
export interface OnConflict {
  on: string;
  renew?: { column: string; below: number };
}

/**
 * `insert into T (c…) values (?…), (?…)…` for `rows` rows: one multi-row VALUES statement (knex
 * writes SQLite's multi-row insert as a UNION ALL of SELECTs, which SQLite parses and plans
 * several times slower, and its compiler re-wraps every column of every row), then `conflict`,
 * the clause conflictClause wrote (its bindings follow the rows' values).
 */
function insertSql(
  columns: number,
  rows: number,
  conflict: { ignore: boolean; sql: string },
): string {
  const row = `(${new Array<string>(columns).fill('?').join(', ')})`;
  return [
    conflict.ignore ? 'insert ignore into ??' : 'insert into ??',
    `(${new Array<string>(columns).fill('??').join(', ')})`,
    `values ${new Array<string>(rows).fill(row).join(', ')}`,
    conflict.sql,
  ].join(' ');
}

/**
 * The clause after an insert's rows for what `conflict` asks, with its bindings in the order of
 * its placeholders; `ignore` when MySQL skips the row by the `insert ignore` prefix instead.
 * Identifiers are `??` bindings for knex, or written in place by `quote` (a prepared statement).
 */
function conflictClause(
  client: string,
  table: string,
  conflict: OnConflict | undefined,
  quote?: (name: string) => string,
): { ignore: boolean; sql: string; bindings: unknown[] } {
  const bindings: unknown[] = [];
  if (!conflict) return { ignore: false, sql: '', bindings };
  const name = (identifier: string) => {
    if (quote) return quote(identifier);
    bindings.push(identifier);
    return '??';
  };
  const value = (bound: unknown) => {
    bindings.push(bound);
    return '?';
  };
  const { on, renew } = conflict;
  // (template parts are evaluated left to right: the bindings follow the placeholders)
  if (client === 'mysql')
    return renew
      ? {
          ignore: false,
          sql: `on duplicate key update ${name(renew.column)} = if(${name(renew.column)} < ${value(renew.below)}, values(${name(renew.column)}), ${name(renew.column)})`,
          bindings,
        }
      : { ignore: true, sql: '', bindings };
  return {
    ignore: false,
    sql: renew
      ? `on conflict (${name(on)}) do update set ${name(renew.column)} = excluded.${name(renew.column)} where ${name(table)}.${name(renew.column)} < ${value(renew.below)}`
      : `on conflict (${name(on)}) do nothing`,
    bindings,
  };
}

/** What the plugin uses of a better-sqlite3 connection and its prepared statements. */
interface NativeSqlite {
  prepare(sql: string): { run(values: readonly unknown[]): unknown };
}

/**
 * Rows a prepared SQLite insert writes at once. Each run of a statement costs its call into the
 * driver and a pass of SQLite's program: 16 rows a run wrote a first build's 140k version rows
 * (4 indexes) about a fifth faster than one (on a 2-core VM: 1.35–2.0 s against 1.64–2.53 s with
 * the commits; 64 was no faster than 16), and the statement's placeholders stay few to parse.
 */
const SQLITE_ROWS = 16;

/** Prepared inserts per SQLite connection, by their SQL. */
const preparedInserts = new WeakMap<object, Map<string, ReturnType<NativeSqlite['prepare']>>>();

/** Backticked identifier, as SQLite quotes it. */
const quoted = (name: string) => `\`${name.replace(/`/g, '``')}\``;

/**
 * A value as knex's better-sqlite3 client binds it: booleans as 0/1, dates as milliseconds; and
 * like knex, an undefined value is refused rather than written as NULL.
 */
function sqliteValue(value: unknown): unknown {
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (value instanceof Date) return value.valueOf();
  if (value === undefined) throw new Error('an undefined value in a row to insert');
  return value;
}

/**
 * The transaction's own better-sqlite3 connection, or null when the connection is not one (then
 * the rows go through the query builder). On SQLite a first build's rows went through knex as
 * multi-row INSERTs: each statement's SQL was written, scanned for its placeholders and parsed
 * anew (a 200-row statement of 18 columns is 3,600 placeholders), which cost more than SQLite's
 * writing the rows. A few prepared INSERTs per table (SQLITE_ROWS rows a run, the rest one by
 * one), run inside the same transaction, cost a few microseconds a row.
 */
async function nativeSqlite(trx: Knex): Promise<NativeSqlite | null> {
  // Only a transaction hands out the connection it holds; a pool would lend one for good.
  if (!(trx as unknown as { isTransaction?: boolean }).isTransaction) return null;
  const connection = (await (
    trx as unknown as { client: { acquireConnection(): Promise<unknown> } }
  ).client.acquireConnection()) as Partial<NativeSqlite> | null;
  return connection && typeof connection.prepare === 'function'
    ? (connection as NativeSqlite)
    : null;
}

/** Rows per INSERT on PostgreSQL, where a statement binds one array per column, not per value. */
const UNNEST_CHUNK = 1000;

/** What identifies one database in this process: its knex config, which transactions share. */
const databaseOf = (trx: Knex): object =>
  (trx as unknown as { client: { config: object } }).client.config;

/** Column types of the plugin's tables on PostgreSQL, per database and table. */
const postgresTypes = new WeakMap<object, Map<string, Promise<Map<string, string>>>>();

/**
 * The declared types of `table`'s columns (`character varying(255)`, `jsonb`, `bytea` …) as the
 * database has them, read once per table: the arrays of an `unnest` insert are cast to them.
 */
function columnTypes(trx: Knex, table: string): Promise<Map<string, string>> {
  const database = databaseOf(trx);
  let tables = postgresTypes.get(database);
  if (!tables) postgresTypes.set(database, (tables = new Map()));
  let types = tables.get(table);
  if (!types) {
    types = (async () => {
      const result = (await trx.raw(
        'select a.attname as name, format_type(a.atttypid, a.atttypmod) as type ' +
          'from pg_attribute a where a.attrelid = ?::regclass and a.attnum > 0 and not a.attisdropped',
        [`"${table.replace(/"/g, '""')}"`],
      )) as { rows: { name: string; type: string }[] };
      return new Map(result.rows.map((row) => [row.name, row.type]));
    })();
    tables.set(table, types);
    // A failed read is not kept: the next insert reads again.
    types.catch(() => tables.delete(table));
  }
  return types;
}

/** Rows written to each table by this process since its statistics were last refreshed. */
const analyzed = new WeakMap<object, Map<string, { written: number; next: number }>>();
/** A table's statistics are refreshed once this many rows were written, then at each doubling. */
const FIRST_ANALYZE = 2_000;

/**
 * PostgreSQL plans a query with the statistics of its last ANALYZE, which autovacuum runs at most
 * once a minute. A first build grows the plugin's tables from nothing to hundreds of thousands of
 * rows in a few minutes, planned all along as the tiny tables they were: at 10k articles each
 * batch's lookups (open versions, recent changelog, states of a document) scanned whole tables,
 * 20–50 ms a query and 50 s of a 113 s first build. The tables written to are analyzed after
 * 2,000 rows and then each time their rows written doubled: a dozen ANALYZEs (each samples at most
 * 30,000 rows) per table in a first build of 100k articles, none in an everyday build. A database
 * user that does not own the tables gets a warning from PostgreSQL, not an error.
 */
async function analyzeAsItGrows(trx: Knex, table: string, rows: number): Promise<void> {
  const database = databaseOf(trx);
  let tables = analyzed.get(database);
  if (!tables) analyzed.set(database, (tables = new Map()));
  const count = tables.get(table) ?? { written: 0, next: FIRST_ANALYZE };
  tables.set(table, count);
  count.written += rows;
  if (count.written < count.next) return;
  count.next = count.written * 2;
  await trx.raw('analyze ??', [table]);
}

/**
 * PostgreSQL: `insert into T (c…) select * from unnest($1::type[], $2::type[] …)` — one array
 * parameter per column instead of one parameter per value. A 200-row VALUES statement of a
 * state's 18 columns bound 3,600 parameters, each serialised by the driver and planned by the
 * server; on a 1k site's first build the plugin's inserts were half of its statements' time.
 */
async function insertUnnest(
  trx: Knex,
  table: string,
  columns: readonly string[],
  rows: readonly unknown[][],
  conflict?: OnConflict,
): Promise<void> {
  const types = await columnTypes(trx, table);
  const casts = columns.map((column) => {
    const type = types.get(column);
    if (!type) throw new Error(`no column "${column}" in table "${table}"`);
    return `?::${type}[]`;
  });
  const clause = conflictClause('postgres', table, conflict);
  const sql =
    `insert into ?? (${columns.map(() => '??').join(', ')}) select * from unnest(${casts.join(', ')}) ` +
    clause.sql;
  for (let i = 0; i < rows.length; i += UNNEST_CHUNK) {
    const chunk = rows.slice(i, i + UNNEST_CHUNK);
    const arrays = columns.map((_, c) =>
      chunk.map((row) => {
        const value = row[c];
        if (value === undefined) throw new Error('an undefined value in a row to insert');
        return value;
      }),
    );
    await trx.raw(sql, [table, ...columns, ...arrays, ...clause.bindings]);
  }
  await analyzeAsItGrows(trx, table, rows.length);
}

/**
 * Insert `rows` (values in the order of `columns`) into `table` in chunks, in the transaction
 * `trx`; with `conflict`, a row whose value of a unique column is already stored is skipped or
 * renews that row (OnConflict). Rows of one call must not repeat a unique value.
 */
export async function insertRows(
  trx: Knex,
  client: string,
  table: string,
  columns: readonly string[],
  rows: readonly unknown[][],
  conflict?: OnConflict,
): Promise<void> {
  if (rows.length === 0) return;
  const sqlite = client === 'sqlite' ? await nativeSqlite(trx) : null;
  if (sqlite) {
    const clause = conflictClause(client, table, conflict, quoted);
    const width = columns.length;
    const statementOf = (count: number) => {
      const one = `(${columns.map(() => '?').join(', ')})`;
      const sql =
        `insert into ${quoted(table)} (${columns.map(quoted).join(', ')}) ` +
        `values ${Array.from({ length: count }, () => one).join(', ')} ${clause.sql}`;
      let statements = preparedInserts.get(sqlite);
      if (!statements) preparedInserts.set(sqlite, (statements = new Map()));
      let statement = statements.get(sql);
      if (!statement) statements.set(sql, (statement = sqlite.prepare(sql)));
      return statement;
    };
    // SQLITE_ROWS a statement while they last, then one by one; the values of each statement in
    // one array filled in place.
    const run = (count: number, from: number, statement: ReturnType<typeof statementOf>) => {
      const values = new Array<unknown>(count * width + clause.bindings.length);
      for (let r = 0; r < count; r += 1) {
        const row = rows[from + r]!;
        for (let c = 0; c < width; c += 1) values[r * width + c] = sqliteValue(row[c]);
      }
      clause.bindings.forEach((binding, b) => (values[count * width + b] = binding));
      statement.run(values);
    };
    let at = 0;
    if (rows.length >= SQLITE_ROWS) {
      const many = statementOf(SQLITE_ROWS);
      for (; at + SQLITE_ROWS <= rows.length; at += SQLITE_ROWS) run(SQLITE_ROWS, at, many);
    }
    if (at < rows.length) {
      const one = statementOf(1);
      for (; at < rows.length; at += 1) run(1, at, one);
    }
    return;
  }
  if (client === 'postgres') return insertUnnest(trx, table, columns, rows, conflict);
  const clause = conflictClause(client, table, conflict);
  for (let i = 0; i < rows.length; i += INSERT_CHUNK) {
    const chunk = rows.slice(i, i + INSERT_CHUNK);
    await trx.raw(insertSql(columns.length, chunk.length, clause), [
      table,
      ...columns,
      ...chunk.flat(),
      ...clause.bindings,
    ]);
  }
}

/**
 * Insert rows into one of the plugin's own tables with multi-row INSERTs. The entity manager's
 * create costs a document id, lifecycle hooks and a read-back per row, which was most of a first
 * build's time on a site with existing content; the plugin's bookkeeping rows need none of it.
 * Attribute names become columns, JSON attributes are serialised; an undefined value leaves its
 * column out (rows are grouped by the columns they set). Strapi's own `created_at`/`updated_at`
 * stay empty: nothing reads them on these rows, which carry their own times where one matters,
 * and on a first build they were two columns of every one of hundreds of thousands of rows.
 * Runs inside the caller's transaction when there is one, else in its own.
 */
export async function bulkInsert(
  strapi: Core.Strapi,
  uid: string,
  rows: readonly Record<string, unknown>[],
): Promise<void> {
  if (rows.length === 0) return;
  const meta = strapi.db.metadata.get(uid);
  const attributes = meta.attributes as Record<string, AttributeMeta>;
  type Group = { names: string[]; json: boolean[]; values: unknown[][] };
  const groups = new Map<string, Group>();
  let last: Group | undefined;
  for (const row of rows) {
    // Rows of one call mostly set the same columns: a row that sets those of the row before is
    // put with it without listing its own (at 10k articles a first build inserts 420k rows, and
    // listed and joined the names of each: 0.1 GB of garbage).
    let defined = 0;
    for (const name in row) if (row[name] !== undefined) defined += 1;
    let group =
      last && last.names.length === defined && last.names.every((name) => row[name] !== undefined)
        ? last
        : undefined;
    if (!group) {
      const names = Object.keys(row).filter((name) => row[name] !== undefined);
      const signature = names.join('\u0000');
      group = groups.get(signature);
      if (!group) {
        group = {
          names,
          json: names.map((name) => attributes[name]?.type === 'json'),
          values: [],
        };
        groups.set(signature, group);
      }
    }
    last = group;
    const { names, json } = group;
    group.values.push(
      names.map((name, i) => {
        const value = row[name];
        // (a JSON column given bytes holds them as they are: blob-repository `bytesAttribute`)
        return json[i] && value !== null && !Buffer.isBuffer(value) ? JSON.stringify(value) : value;
      }),
    );
  }
  await strapi.db.transaction(async ({ trx }) => {
    for (const { names, values } of groups.values())
      await insertRows(
        trx,
        strapi.db.dialect.client,
        meta.tableName,
        names.map((name) => attributes[name]?.columnName ?? name),
        values,
      );
  });
}
