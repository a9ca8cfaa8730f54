import { bytesAttribute, textsModel } from './blob-repository';

/**
 * The plugin's tables that hold a row per manifest item or per change (tracked states, item
 * versions, the changelog, compared sources and stored texts), registered with Strapi's database
 * as plain models, as Strapi's own plugins register their job tables: Strapi creates and keeps
 * their schema on every database, and `strapi.db.query` reads and writes them.
 *
 * They are not content types. A content type's table carries a document id, a locale, publish
 * and author columns, two foreign keys to the admin users and three indexes on them; on a site of
 * 10k entries that was hundreds of thousands of rows each writing four more index entries that
 * held nothing (about 4 MB per table). Releases before this one registered these tables as
 * content types under the same table names: on the first start after an upgrade, Strapi's schema
 * sync drops those columns, keys and indexes and keeps every row.
 */

type Attribute = { type: string; default?: unknown; columnType?: object };

// Functions, not shared objects: Strapi's metadata writes each attribute's column name into it.
const string = (): Attribute => ({ type: 'string' });
const integer = (): Attribute => ({ type: 'integer' });
const text = (): Attribute => ({ type: 'text' });
const json = (): Attribute => ({ type: 'json' });

function model(
  name: string,
  tableName: string,
  attributes: Record<string, Attribute>,
  indexes: { name: string; columns: string[]; type?: 'unique' }[],
) {
  return {
    uid: `plugin::sitemap-ai.${name}`,
    singularName: `sitemap-ai-${name}`,
    tableName,
    attributes: { id: { type: 'increments' }, ...attributes },
    indexes,
  };
}

/**
 * The columns that say where an item comes from and which version of it this is (both tables), on
 * the database client `client` (the type of a bytes column differs).
 */
export const itemColumns = (client = 'sqlite'): Record<string, Attribute> => ({
  item_type: string(),
  lang: string(),
  parent_item: string(),
  source_uid: string(),
  source_document: string(),
  checksum: string(),
  meta_hash: string(),
  content_version: integer(),
  meta_version: integer(),
  modified_at: string(),
  first_published: string(),
  history: json(),
  stability_pin: { type: 'float' },
  data_ref: string(),
  // The item's data itself, its stored body's bytes in the row instead of a key (`data_ref` null):
  // what a version made by a first build holds, its state taking it from there (README "Storage").
  data_body: bytesAttribute(client),
  content_ref: string(),
  // The item's canonical text, its stored body's bytes in the row instead of a key (`content_ref`
  // null): a first build's version holds it as it holds its data, and its state takes it from
  // there (README "Storage"). Texts stored by key are unique by key: each was an upsert and a
  // random entry of that index, which a first build's every commit rewrote.
  content_body: bytesAttribute(client),
  // Item data and canonical text inline: rows written before texts were stored by key.
  data: json(),
  content: text(),
});

/** The tracked current state of each item: what the next snapshot publishes (docs/protocol.md §4). */
const fragmentStates = (client: string) =>
  model(
    'fragment-state',
    'sitemap_ai_fragment_states',
    {
      item_id: string(),
      ...itemColumns(client),
      removed: { type: 'boolean', default: false },
      revision: integer(),
      // Releases before pending states had a table of their own marked them here; bootstrap moves
      // such marks there once (state-repository.ts `movePendingMarks`). Nothing writes it now.
      pending: { type: 'boolean', default: false },
      reason: text(),
      // When the item was added, in ms since 1970, on a state that stands for its "added" changelog
      // entry instead of a row of the changelog (core/tracking.ts `TrackedState.addedAt`).
      added_at: { type: 'biginteger' },
    },
    [
      { name: 'sitemap_ai_states_item_idx', columns: ['item_id'], type: 'unique' },
      { name: 'sitemap_ai_states_source_idx', columns: ['source_uid', 'source_document'] },
    ],
  );

/**
 * The states changed since the last snapshot, each at the revision that changed it: what the next
 * build publishes (docs/protocol.md §4). A table of its own, not a flag on the state: a build
 * deletes these small rows instead of rewriting every state it published, which on PostgreSQL left
 * a dead copy of each (the states table twice its size after a first build) and kept an index on
 * the flag beside the states. The policy a waiting state was computed under is kept here too: it
 * only matters until the state is published (the builder publishes nothing computed under another).
 */
const pendingStates = () =>
  model(
    'pending-state',
    'sitemap_ai_pending_states',
    { item_id: string(), revision: integer(), policy_print: string() },
    [{ name: 'sitemap_ai_pending_item_idx', columns: ['item_id'], type: 'unique' }],
  );

/**
 * One version of one item, valid for snapshots seq_from <= S < seq_to (docs/protocol.md §5). No
 * index on the entry a version comes from: nothing looks versions up by it (states answer that),
 * and earlier releases' index of it is dropped by the schema sync.
 */
const itemVersions = (client: string) =>
  model(
    'item-version',
    'sitemap_ai_item_versions',
    {
      item_id: string(),
      seq_from: integer(),
      seq_to: integer(),
      ...itemColumns(client),
      state_revision: integer(),
    },
    [
      { name: 'sitemap_ai_items_range_idx', columns: ['seq_to', 'item_id'] },
      { name: 'sitemap_ai_items_id_idx', columns: ['item_id', 'seq_from'] },
      { name: 'sitemap_ai_items_from_idx', columns: ['seq_from'] },
      // A page's fragments (its JSON-LD `hasPart`).
      { name: 'sitemap_ai_items_parent_idx', columns: ['parent_item', 'seq_from'] },
    ],
  );

/**
 * One change of one item, with its reason (docs/protocol.md §3.1). Not which entry and locale it
 * came from: nothing reads that of a change (the item's state says it), and earlier releases'
 * columns for it are dropped by the schema sync.
 */
const changelog = () =>
  model(
    'changelog-entry',
    'sitemap_ai_changelog',
    {
      item_id: string(),
      at: string(),
      version: string(),
      kind: string(),
      desc: text(),
      checksum_before: string(),
      checksum_after: string(),
    },
    [
      { name: 'sitemap_ai_changelog_item_idx', columns: ['item_id', 'at'] },
      { name: 'sitemap_ai_changelog_at_idx', columns: ['at'] },
    ],
  );

/**
 * What each document's states were last compared with: a hash of its entries and of the settings
 * that shape its items, so a re-compare skips a document whose hash is unchanged (docs/protocol.md
 * §5.1).
 */
const sourceHashes = () =>
  model(
    'source-hash',
    'sitemap_ai_source_hashes',
    { source_uid: string(), source_document: string(), hash: string() },
    [
      {
        name: 'sitemap_ai_source_hashes_doc_idx',
        columns: ['source_uid', 'source_document'],
        type: 'unique',
      },
    ],
  );

/** Every plain model of the plugin, for the database client `client` (register.ts adds them). */
export function plainModels(client: string) {
  // Built anew for every boot: Strapi writes column names into the attribute objects it is given.
  return [
    fragmentStates(client),
    itemVersions(client),
    changelog(),
    sourceHashes(),
    pendingStates(),
    textsModel(client),
  ];
}
