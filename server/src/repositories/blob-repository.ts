import type { Core } from '@strapi/strapi';
import { blobKey, decodeBlob, encodeBlob } from './blob-codec';
import { insertRows } from './bulk';
import { WRITE_BATCH } from './json';
import { turnEventLoop } from '../utils/event-loop';

export const BLOB_UID = 'plugin::sitemap-ai.blob' as const;

/**
 * A stored text is "touched" when written or reused; collection spares what was touched within
 * this window, so a text that a writer has just decided to reuse is never collected between that
 * decision and the commit of the row that references it.
 */
export const BLOB_GRACE_MS = 10 * 60_000;
/** A reused text's touch is renewed when older than this (not on every reuse); well inside the grace. */
const RETOUCH_MS = 60_000;
/** Unreferenced texts found per scan of the references (each round scans them all once). */
const SWEEP_ROUND = 50_000;

type Row = Record<string, unknown>;

/**
 * Content-addressed texts (README "Storage"): item data and canonical texts, each distinct value
 * stored once and referenced by its key from fragment states and item versions. The only code that
 * touches their table.
 */
export const createBlobRepository = ({ strapi }: { strapi: Core.Strapi }) => {
  const table = () => strapi.db.metadata.get(BLOB_UID).tableName;
  const column = (name: string) =>
    (strapi.db.metadata.get(BLOB_UID).attributes as Record<string, { columnName?: string }>)[name]
      ?.columnName ?? name;

  return {
    /**
     * Store texts (those already stored are reused, their touch renewed); returns each text's key,
     * in order. Runs in the caller's transaction when there is one.
     */
    async put(texts: readonly string[]): Promise<string[]> {
      const keys = texts.map(blobKey);
      const distinct = new Map<string, string>();
      texts.forEach((text, i) => distinct.set(keys[i]!, text));
      if (distinct.size === 0) return keys;
      const now = Date.now();
      await strapi.db.transaction(async ({ trx }) => {
        const all = [...distinct.keys()];
        for (let i = 0; i < all.length; i += WRITE_BATCH) {
          const chunk = all.slice(i, i + WRITE_BATCH);
          const existing = (await trx(table())
            .select(column('key'), column('touched_at'))
            .whereIn(column('key'), chunk)) as Row[];
          const found = new Map(
            existing.map((row) => [String(row[column('key')]), Number(row[column('touched_at')])]),
          );
          const stale = chunk.filter((key) => found.has(key) && found.get(key)! < now - RETOUCH_MS);
          if (stale.length > 0)
            await trx(table())
              .whereIn(column('key'), stale)
              .update({ [column('touched_at')]: now });
          const missing = chunk.filter((key) => !found.has(key));
          if (missing.length === 0) continue;
          // Another writer may store the same text at the same moment: its row is as good as ours.
          await insertRows(
            trx,
            strapi.db.dialect.client,
            table(),
            [column('key'), column('body'), column('touched_at')],
            missing.map((key) => [key, encodeBlob(distinct.get(key)!), now]),
            column('key'),
          );
        }
      });
      return keys;
    },

    /** The stored bodies of these keys, still encoded (a key not stored is absent from the map). */
    async getEncoded(keys: readonly unknown[]): Promise<Map<string, string>> {
      const wanted = [
        ...new Set(keys.filter((k): k is string => typeof k === 'string' && k !== '')),
      ];
      const result = new Map<string, string>();
      const knex = strapi.db.connection;
      for (let i = 0; i < wanted.length; i += WRITE_BATCH) {
        const rows = (await knex(table())
          .select(column('key'), column('body'))
          .whereIn(column('key'), wanted.slice(i, i + WRITE_BATCH))) as Row[];
        for (const row of rows) result.set(String(row[column('key')]), String(row[column('body')]));
      }
      return result;
    },

    /** The texts of these keys, decoded (a key not stored is absent from the map). */
    async texts(keys: readonly unknown[]): Promise<Map<string, string>> {
      const result = new Map<string, string>();
      for (const [key, body] of await this.getEncoded(keys)) result.set(key, decodeBlob(body));
      return result;
    },

    /**
     * Delete the texts no state or version references and nobody touched since `before` (ms):
     * storage hygiene, run by the builder now and then. Returns how many went.
     *
     * Mark and sweep: each round is one statement that scans every referencing column once and
     * finds the unreferenced texts among the old ones, so the reference columns carry no index
     * (one fewer random insertion per state and version written, on the first build of a site
     * hundreds of thousands of times). PostgreSQL answers NOT EXISTS with a hash anti-join;
     * SQLite, MySQL and MariaDB materialise each uncorrelated NOT IN once.
     */
    async collect(
      before: number,
      referencing: readonly { table: string; columns: readonly string[] }[],
    ): Promise<number> {
      const knex = strapi.db.connection;
      const blobs = table();
      const key = column('key');
      const touched = column('touched_at');
      const postgres = strapi.db.dialect.client === 'postgres';
      let deleted = 0;
      for (;;) {
        let sweep = knex(blobs)
          .select('id')
          .where(touched, '<', before)
          .orderBy('id')
          .limit(SWEEP_ROUND);
        for (const { table: other, columns } of referencing)
          for (const ref of columns)
            sweep = postgres
              ? sweep.whereNotExists(
                  knex(other)
                    .select(knex.raw('1'))
                    .whereRaw('??.?? = ??.??', [other, ref, blobs, key]),
                )
              : sweep.whereNotIn(key, knex(other).select(ref).whereNotNull(ref));
        const ids = ((await sweep) as { id: number }[]).map((row) => Number(row.id));
        // Touched since the sweep looked (a writer reused it): kept.
        for (let i = 0; i < ids.length; i += WRITE_BATCH)
          deleted += Number(
            await knex(blobs)
              .whereIn('id', ids.slice(i, i + WRITE_BATCH))
              .andWhere(touched, '<', before)
              .delete(),
          );
        if (ids.length < SWEEP_ROUND) return deleted;
        await turnEventLoop();
      }
    },
  };
};

export type BlobRepository = ReturnType<typeof createBlobRepository>;

/** A stored text, decoded on first use (most readers of a state never look at its text). */
export function lazyText(body: string | undefined, fallback: string): () => string {
  let value: string | undefined;
  return () => (value ??= body === undefined ? fallback : decodeBlob(body));
}
