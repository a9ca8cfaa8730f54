import type { Core } from '@strapi/strapi';

/** Rows per INSERT: far under every database's bound-parameter limit for the widest table. */
const INSERT_CHUNK = 200;

/** The query builder Strapi's database runs on (knex), as a transaction hands it out. */
type Knex = Core.Strapi['db']['connection'];

interface AttributeMeta {
  type?: string;
  columnName?: string;
}

/**
 * `insert into T (c…) values (?…), (?…)…` for `rows` rows: one multi-row VALUES statement on every
 * database (knex writes SQLite's multi-row insert as a UNION ALL of SELECTs, which SQLite parses
 * and plans several times slower, and its compiler re-wraps every column of every row). With
 * `ignoreOn`, a row whose value of that unique column is already stored is skipped.
 */
function insertSql(client: string, columns: number, rows: number, ignoreOn: boolean): string {
  const row = `(${new Array<string>(columns).fill('?').join(', ')})`;
  const ignore = ignoreOn && client === 'mysql';
  return [
    ignore ? 'insert ignore into ??' : 'insert into ??',
    `(${new Array<string>(columns).fill('??').join(', ')})`,
    `values ${new Array<string>(rows).fill(row).join(', ')}`,
    ignoreOn && !ignore ? 'on conflict (??) do nothing' : '',
  ].join(' ');
}

/** What the plugin uses of a better-sqlite3 connection and its prepared statements. */
interface NativeSqlite {
  prepare(sql: string): { run(values: readonly unknown[]): unknown };
}

/** Prepared single-row inserts per SQLite connection, by their SQL. */
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
 * writing the rows. One prepared single-row INSERT per table, run for each row inside the same
 * transaction, costs a few microseconds a row.
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

/**
 * Insert `rows` (values in the order of `columns`) into `table` in chunks, in the transaction
 * `trx`; with `ignoreOn` (a unique column) rows whose value is already stored are skipped.
 */
export async function insertRows(
  trx: Knex,
  client: string,
  table: string,
  columns: readonly string[],
  rows: readonly unknown[][],
  ignoreOn?: string,
): Promise<void> {
  if (rows.length === 0) return;
  const sqlite = client === 'sqlite' ? await nativeSqlite(trx) : null;
  if (sqlite) {
    const sql =
      `insert into ${quoted(table)} (${columns.map(quoted).join(', ')}) ` +
      `values (${columns.map(() => '?').join(', ')})` +
      (ignoreOn ? ` on conflict (${quoted(ignoreOn)}) do nothing` : '');
    let statements = preparedInserts.get(sqlite);
    if (!statements) preparedInserts.set(sqlite, (statements = new Map()));
    let statement = statements.get(sql);
    if (!statement) statements.set(sql, (statement = sqlite.prepare(sql)));
    for (const row of rows) statement.run(row.map(sqliteValue));
    return;
  }
  for (let i = 0; i < rows.length; i += INSERT_CHUNK) {
    const chunk = rows.slice(i, i + INSERT_CHUNK);
    const identifiers = ignoreOn && client !== 'mysql' ? [ignoreOn] : [];
    await trx.raw(insertSql(client, columns.length, chunk.length, ignoreOn !== undefined), [
      table,
      ...columns,
      ...chunk.flat(),
      ...identifiers,
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
  const groups = new Map<string, { names: string[]; json: boolean[]; values: unknown[][] }>();
  for (const row of rows) {
    const names = Object.keys(row).filter((name) => row[name] !== undefined);
    const signature = names.join('\u0000');
    let group = groups.get(signature);
    if (!group) {
      group = {
        names,
        json: names.map((name) => attributes[name]?.type === 'json'),
        values: [],
      };
      groups.set(signature, group);
    }
    const { json } = group;
    group.values.push(
      names.map((name, i) => {
        const value = row[name];
        return json[i] && value !== null ? JSON.stringify(value) : value;
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
