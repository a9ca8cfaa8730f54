import type { Core } from '@strapi/strapi';

/** Rows per INSERT: far under every database's bound-parameter limit for the widest table. */
const INSERT_CHUNK = 200;

interface AttributeMeta {
  type?: string;
  columnName?: string;
}

/**
 * Insert rows into one of the plugin's own tables with multi-row INSERTs through knex. The entity
 * manager's create costs a document id, lifecycle hooks and a read-back per row, which was most
 * of a first build's time on a site with existing content; the plugin's bookkeeping rows need
 * none of it. Attribute names become columns, JSON attributes are serialised. Runs inside the
 * caller's transaction when there is one, else in its own.
 */
export async function bulkInsert(
  strapi: Core.Strapi,
  uid: string,
  rows: readonly Record<string, unknown>[],
): Promise<void> {
  if (rows.length === 0) return;
  const meta = strapi.db.metadata.get(uid);
  const attributes = meta.attributes as Record<string, AttributeMeta>;
  const now = new Date();
  const mapped = rows.map((row) => {
    const out: Record<string, unknown> = { created_at: now, updated_at: now };
    for (const [name, value] of Object.entries(row)) {
      const attribute = attributes[name];
      out[attribute?.columnName ?? name] =
        attribute?.type === 'json' && value !== null && value !== undefined
          ? JSON.stringify(value)
          : value;
    }
    return out;
  });
  await strapi.db.transaction(async ({ trx }) => {
    for (let i = 0; i < mapped.length; i += INSERT_CHUNK)
      await trx(meta.tableName).insert(mapped.slice(i, i + INSERT_CHUNK));
  });
}
