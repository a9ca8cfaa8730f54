import type { Core } from '@strapi/strapi';
import type { ManifestItem } from '../../shared/contracts/manifest';
import { decodeBlob } from '../../server/src/repositories/blob-codec';
import { createBlobRepository } from '../../server/src/repositories/blob-repository';

/**
 * The data of one row of the plugin's item versions or fragment states, as stored (by its key in
 * the stored texts, or in the row itself), and a way to store other data in its place (by a key):
 * for tests that damage a row the way a defect or someone with database access would.
 */
export async function storedData(
  strapi: Core.Strapi,
  uid: string,
  rowId: number,
): Promise<{ data: ManifestItem; replace(data: ManifestItem): Promise<void> }> {
  const blobs = createBlobRepository({ strapi });
  const query = strapi.db.query(uid as never);
  const row = (await query.findOne({ where: { id: rowId } })) as {
    data_ref: string | null;
    data_body: Buffer | string | null;
  };
  const text = row.data_ref
    ? (await blobs.texts([row.data_ref])).get(row.data_ref)
    : row.data_body
      ? decodeBlob(row.data_body)
      : undefined;
  if (text === undefined) throw new Error(`row ${rowId} of ${uid} has no stored data`);
  return {
    data: JSON.parse(text) as ManifestItem,
    async replace(data) {
      const [key] = await blobs.put([JSON.stringify(data)]);
      await query.update({ where: { id: rowId }, data: { data_ref: key, data_body: null } });
    },
  };
}

/**
 * The fragment states waiting for the next build (of one document, or all): their rows, with the
 * revision they wait at, read from the plugin's tables as they are stored.
 */
export async function pendingStates(
  strapi: Core.Strapi,
  documentId?: string,
): Promise<{ id: number; item_id: string; revision: number }[]> {
  const states = strapi.db.metadata.get('plugin::sitemap-ai.fragment-state' as never).tableName;
  const pending = strapi.db.metadata.get('plugin::sitemap-ai.pending-state' as never).tableName;
  const query = strapi.db
    .connection(pending)
    .join(states, `${states}.item_id`, `${pending}.item_id`)
    .select(`${states}.id`, `${states}.item_id`, `${pending}.revision`);
  if (documentId) query.where(`${states}.source_document`, documentId);
  return ((await query) as { id: number; item_id: string; revision: number }[]).map((row) => ({
    id: Number(row.id),
    item_id: String(row.item_id),
    revision: Number(row.revision),
  }));
}

/**
 * Every changelog entry recorded (item, version, kind, when): the changelog's rows and the "added"
 * entries states stand for instead of a row (a first build's, core/tracking.ts
 * `TrackedState.addedAt`), read from the plugin's tables as they are stored.
 */
export async function changelogEntries(
  strapi: Core.Strapi,
): Promise<{ item_id: string; version: string; kind: string; at: string; desc: string }[]> {
  const rows = (await strapi.db.query('plugin::sitemap-ai.changelog-entry' as never).findMany({
    orderBy: { id: 'asc' },
  })) as { item_id: string; version: string; kind: string; at: string; desc: string }[];
  const implying = (await strapi.db.query('plugin::sitemap-ai.fragment-state' as never).findMany({
    where: { added_at: { $notNull: true } },
    select: ['item_id', 'added_at'],
  })) as { item_id: string; added_at: number | string }[];
  return [
    ...implying.map((state) => ({
      item_id: state.item_id,
      version: 'v1.0',
      kind: 'added',
      at: new Date(Number(state.added_at)).toISOString(),
      desc: '(implied by its state)',
    })),
    ...rows,
  ];
}

/**
 * Delete every row of the plugin's snapshots and per-item tables, keeping the content: what a
 * site's first build starts from.
 */
export async function wipePluginRows(strapi: Core.Strapi): Promise<void> {
  for (const table of [
    'sitemap_ai_snapshots',
    'sitemap_ai_fragment_states',
    'sitemap_ai_pending_states',
    'sitemap_ai_item_versions',
    'sitemap_ai_changelog',
    'sitemap_ai_source_hashes',
    'sitemap_ai_aliases',
    'sitemap_ai_texts',
  ])
    await strapi.db.connection(table).delete();
}

/** The plugin's access log as the tests read it: written out, then listed in order. */
export function accessLogOf(strapi: Core.Strapi) {
  return strapi.plugin('sitemap-ai').service('access-log') as {
    flush(): Promise<void>;
    list(limit?: number): Promise<{ route: string; status: number }[]>;
  };
}
