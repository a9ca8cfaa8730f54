import type { Core } from '@strapi/strapi';
import { blobKey, decodeBlob } from './blob-codec';
import { encodeBodies } from './blob-encoder';
import { insertRows } from './bulk';
import { WRITE_BATCH } from './json';
import { turnEventLoop } from '../utils/event-loop';

/** Where releases before stored texts had a table of their own kept them (a content type). */
export const BLOB_UID = 'plugin::sitemap-ai.blob' as const;
/** The stored texts' own table: a plain table, not a content type (see textsModel). */
export const TEXT_UID = 'plugin::sitemap-ai.text' as const;

/** The bytes column type of each database Strapi runs on (MySQL's BLOB stops at 64 KB). */
const BYTES_TYPE: Record<string, string> = {
  sqlite: 'blob',
  postgres: 'bytea',
  mysql: 'longblob',
};

/**
 * An attribute whose column holds a stored body's bytes (models.ts `data_body`). Declared `json`:
 * the entity manager hands a JSON column's non-string value back as the driver gave it (a
 * Buffer), where a text column's would be decoded as UTF-8 into a string; it would write a Buffer
 * as JSON, so such a column is written only by the plugin's own inserts and updates (bulk.ts).
 */
export function bytesAttribute(client: string) {
  const bytes = BYTES_TYPE[client];
  if (!bytes) throw new Error(`no bytes column type for the database client "${client}"`);
  return { type: 'json', columnType: { type: 'specificType', args: [bytes] } };
}

/**
 * The stored texts' table, registered with Strapi's database as a model of its own (as Strapi's
 * own plugins register their job tables), so its schema is created and kept by Strapi on every
 * database. Not a content type: a content type's table carries a document id, a locale, publish
 * and author columns and three indexes on them, which on a first build were written for each of
 * hundreds of thousands of texts and held nothing. The body is bytes, not base64 text; its column
 * type is the one Strapi's schema inspector reads back (a `specificType`), so its schema sync
 * finds nothing to alter.
 */
export function textsModel(client: string) {
  const bytes = BYTES_TYPE[client];
  if (!bytes) throw new Error(`no bytes column type for the database client "${client}"`);
  return {
    uid: TEXT_UID,
    singularName: 'sitemap-ai-text',
    tableName: 'sitemap_ai_texts',
    attributes: {
      id: { type: 'increments' },
      key: { type: 'string', column: { notNullable: true } },
      body: {
        type: 'text',
        columnType: { type: 'specificType', args: [bytes] },
        column: { notNullable: true },
      },
      touched_at: { type: 'biginteger', column: { notNullable: true } },
    },
    indexes: [{ name: 'sitemap_ai_texts_key_idx', columns: ['key'], type: 'unique' }],
  };
}

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

/** A text's key and stored body, made already (BlobRepository's prepare). */
export interface EncodedText {
  key: string;
  body: Buffer;
}

/** A text with its key and stored body (a draft's canonical text, as the plugin's thread made it). */
export interface EncodedContent extends EncodedText {
  text: string;
}

/** Texts being stored (BlobRepository's prepare): every text's key, and the distinct ones' bodies. */
export interface PreparedTexts {
  /** Each text's key, in the order given. */
  keys: string[];
  /** The distinct keys, in the order of `bodies`. */
  distinct: string[];
  /** Their encoded bodies; never rejects (the encoder falls back to this thread). */
  bodies: Promise<Buffer[]>;
}

/**
 * Content-addressed texts (README "Storage"): item data and canonical texts, each distinct value
 * stored once and referenced by its key from fragment states and item versions. The only code that
 * touches their tables: `sitemap_ai_texts`, where every text is written, and the content type
 * earlier releases wrote them to, read for a key not found in the first and swept alike, so that
 * what those releases stored is served until nothing references it.
 */
export const createBlobRepository = ({ strapi }: { strapi: Core.Strapi }) => {
  // Both tables name their columns `key`, `body` and `touched_at` (the attributes' own names).
  const tableOf = (uid: string) => strapi.db.metadata.get(uid as never).tableName;
  const table = () => tableOf(TEXT_UID);

  /** Bodies of `keys` in one of the two tables (a key not stored there is absent). */
  async function bodiesIn(
    uid: string,
    keys: readonly string[],
    into: Map<string, Buffer | string>,
  ): Promise<void> {
    const knex = strapi.db.connection;
    for (let i = 0; i < keys.length; i += WRITE_BATCH) {
      const rows = (await knex(tableOf(uid))
        .select('key', 'body')
        .whereIn('key', keys.slice(i, i + WRITE_BATCH))) as Row[];
      for (const row of rows) into.set(String(row.key), row.body as Buffer | string);
    }
  }

  /** Delete what no reference names and nobody touched since `before` from one table. */
  async function sweep(
    uid: string,
    before: number,
    referencing: readonly { table: string; columns: readonly string[] }[],
  ): Promise<number> {
    const knex = strapi.db.connection;
    const texts = tableOf(uid);
    const postgres = strapi.db.dialect.client === 'postgres';
    let deleted = 0;
    for (;;) {
      let select = knex(texts)
        .select('id')
        .where('touched_at', '<', before)
        .orderBy('id')
        .limit(SWEEP_ROUND);
      for (const { table: other, columns } of referencing)
        for (const ref of columns)
          select = postgres
            ? select.whereNotExists(
                knex(other)
                  .select(knex.raw('1'))
                  .whereRaw('??.?? = ??.??', [other, ref, texts, 'key']),
              )
            : select.whereNotIn('key', knex(other).select(ref).whereNotNull(ref));
      const ids = ((await select) as { id: number }[]).map((row) => Number(row.id));
      // Touched since the sweep looked (a writer reused it): kept.
      for (let i = 0; i < ids.length; i += WRITE_BATCH)
        deleted += Number(
          await knex(texts)
            .whereIn('id', ids.slice(i, i + WRITE_BATCH))
            .andWhere('touched_at', '<', before)
            .delete(),
        );
      if (ids.length < SWEEP_ROUND) return deleted;
      await turnEventLoop();
    }
  }

  return {
    /**
     * Begin storing texts: their keys now, in order, and their bodies encoded meanwhile (on the
     * encoder's thread when there are many, see blob-encoder.ts), for `store` to write. A text
     * whose place in `given` holds its key and body made already (a first build's canonical texts,
     * keyed and encoded on the plugin's thread with their drafts) is neither hashed nor encoded
     * again. A write that needs only the keys for its other rows writes those first.
     */
    prepare(
      texts: readonly string[],
      given: readonly (EncodedText | undefined)[] = [],
    ): PreparedTexts {
      const keys = texts.map((text, i) => given[i]?.key ?? blobKey(text));
      // Each distinct key once, with its text and, when given, its body.
      const distinct = new Map<string, { text: string; body: Buffer | undefined }>();
      texts.forEach((text, i) => {
        const known = distinct.get(keys[i]!);
        if (!known) distinct.set(keys[i]!, { text, body: given[i]?.body });
        else known.body ??= given[i]?.body;
      });
      const values = [...distinct.values()];
      const missing = values.filter(({ body }) => body === undefined).map(({ text }) => text);
      const made = missing.length === 0 ? Promise.resolve([]) : encodeBodies(missing);
      // (the bodies encoded now, in order, fill the places of the texts not given)
      const bodies = made.then((fresh) => {
        let next = 0;
        return values.map(({ body }) => body ?? fresh[next++]!);
      });
      return { keys, distinct: [...distinct.keys()], bodies };
    },

    /**
     * Store what `prepare` began (texts already stored are reused, their touch renewed). Runs in
     * the caller's transaction when there is one.
     */
    async store({ distinct, bodies }: PreparedTexts): Promise<void> {
      if (distinct.length === 0) return;
      const encoded = await bodies;
      const now = Date.now();
      // One statement per chunk: each text stored, or its touch renewed when stale. Looking the
      // keys up first cost as much as the insert (a 1k site's first build on PostgreSQL: 160
      // lookups, 0.5 s, for texts none of which were stored); deflating a text that turns out
      // stored costs less. Another writer storing the same text at the same moment is as good.
      // (A text an earlier release stored in the old table is written again here: reads look
      // here first, and the old row goes with a later sweep.)
      await strapi.db.transaction(({ trx }) =>
        insertRows(
          trx,
          strapi.db.dialect.client,
          table(),
          ['key', 'body', 'touched_at'],
          distinct.map((key, i) => [key, encoded[i]!, now]),
          { on: 'key', renew: { column: 'touched_at', below: now - RETOUCH_MS } },
        ),
      );
    },

    /**
     * Store texts (those already stored are reused, their touch renewed); returns each text's key,
     * in order. Runs in the caller's transaction when there is one.
     */
    async put(texts: readonly string[]): Promise<string[]> {
      const prepared = this.prepare(texts);
      await this.store(prepared);
      return prepared.keys;
    },

    /**
     * The bodies of texts to be kept in the rows that use them (models.ts `data_body`), not
     * stored here under a key: neither hashed nor written to this table (encoded on the plugin's
     * thread when there are many, as `prepare`). Never rejects.
     */
    inline(texts: readonly string[]): Promise<Buffer[]> {
      return texts.length === 0 ? Promise.resolve([]) : encodeBodies(texts);
    },

    /** The stored bodies of these keys, still encoded (a key not stored is absent from the map). */
    async getEncoded(keys: readonly unknown[]): Promise<Map<string, Buffer | string>> {
      const wanted = [
        ...new Set(keys.filter((k): k is string => typeof k === 'string' && k !== '')),
      ];
      const result = new Map<string, Buffer | string>();
      await bodiesIn(TEXT_UID, wanted, result);
      const older = wanted.filter((key) => !result.has(key));
      if (older.length > 0) await bodiesIn(BLOB_UID, older, result);
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
      return (
        (await sweep(TEXT_UID, before, referencing)) + (await sweep(BLOB_UID, before, referencing))
      );
    },
  };
};

export type BlobRepository = ReturnType<typeof createBlobRepository>;
