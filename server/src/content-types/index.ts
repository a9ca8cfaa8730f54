import itemVersion from './item-version/schema.json';
import snapshot from './snapshot/schema.json';

/** The plugin's own tables, hidden from the Content Manager (SPEC §6 snapshots). */
export default {
  snapshot: {
    schema: {
      ...snapshot,
      indexes: [{ name: 'sitemap_ai_snapshots_seq_idx', columns: ['seq'], type: 'unique' }],
    },
  },
  'item-version': {
    schema: {
      ...itemVersion,
      indexes: [
        { name: 'sitemap_ai_items_range_idx', columns: ['seq_to', 'item_id'] },
        { name: 'sitemap_ai_items_id_idx', columns: ['item_id', 'seq_from'] },
        { name: 'sitemap_ai_items_source_idx', columns: ['source_uid', 'source_document'] },
      ],
    },
  },
};
