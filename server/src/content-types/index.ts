import accessLogEntry from './access-log-entry/schema.json';
import accessLogSalt from './access-log-salt/schema.json';
import agentKey from './agent-key/schema.json';
import alias from './alias/schema.json';
import assistantVisit from './assistant-visit/schema.json';
import blob from './blob/schema.json';
import changelogEntry from './changelog-entry/schema.json';
import dirtyMark from './dirty-mark/schema.json';
import fragmentState from './fragment-state/schema.json';
import itemVersion from './item-version/schema.json';
import lock from './lock/schema.json';
import rateCounter from './rate-counter/schema.json';
import snapshot from './snapshot/schema.json';
import sourceHash from './source-hash/schema.json';
import webhookDelivery from './webhook-delivery/schema.json';

/** The plugin's own tables, hidden from the Content Manager. */
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
        { name: 'sitemap_ai_items_from_idx', columns: ['seq_from'] },
        { name: 'sitemap_ai_items_source_idx', columns: ['source_uid', 'source_document'] },
        // A page's fragments (its JSON-LD `hasPart`).
        { name: 'sitemap_ai_items_parent_idx', columns: ['parent_item', 'seq_from'] },
      ],
    },
  },
  'fragment-state': {
    schema: {
      ...fragmentState,
      indexes: [
        { name: 'sitemap_ai_states_item_idx', columns: ['item_id'], type: 'unique' },
        { name: 'sitemap_ai_states_source_idx', columns: ['source_uid', 'source_document'] },
        { name: 'sitemap_ai_states_pending_idx', columns: ['pending', 'item_id'] },
      ],
    },
  },
  // Item data and canonical texts, once per distinct value: states and versions hold their keys.
  blob: {
    schema: {
      ...blob,
      indexes: [{ name: 'sitemap_ai_blobs_key_idx', columns: ['key'], type: 'unique' }],
    },
  },
  'changelog-entry': {
    schema: {
      ...changelogEntry,
      indexes: [
        { name: 'sitemap_ai_changelog_item_idx', columns: ['item_id', 'at'] },
        { name: 'sitemap_ai_changelog_at_idx', columns: ['at'] },
      ],
    },
  },
  'dirty-mark': { schema: dirtyMark },
  // What each document's states were last compared with (a re-compare skips what is unchanged).
  'source-hash': {
    schema: {
      ...sourceHash,
      indexes: [
        {
          name: 'sitemap_ai_source_hashes_doc_idx',
          columns: ['source_uid', 'source_document'],
          type: 'unique',
        },
      ],
    },
  },
  alias: {
    schema: {
      ...alias,
      indexes: [{ name: 'sitemap_ai_aliases_old_idx', columns: ['old_id'], type: 'unique' }],
    },
  },
  lock: {
    schema: {
      ...lock,
      indexes: [{ name: 'sitemap_ai_locks_name_idx', columns: ['name'], type: 'unique' }],
    },
  },
  // docs/protocol.md §8 events: one row per webhook delivery (the retry queue and the delivery log).
  'webhook-delivery': {
    schema: {
      ...webhookDelivery,
      indexes: [{ name: 'sitemap_ai_webhooks_due_idx', columns: ['status', 'next_attempt_at'] }],
    },
  },
  // README › Observability: the pseudonymised access log of the public routes, and the salt of its day.
  'access-log-entry': {
    schema: {
      ...accessLogEntry,
      indexes: [{ name: 'sitemap_ai_access_log_at_idx', columns: ['at'] }],
    },
  },
  // One limit across instances: each instance adds its own counts, the limit applies to the sum.
  'rate-counter': {
    schema: {
      ...rateCounter,
      indexes: [
        {
          name: 'sitemap_ai_rate_counters_bucket_idx',
          columns: ['bucket', 'instance'],
          type: 'unique',
        },
        { name: 'sitemap_ai_rate_counters_expiry_idx', columns: ['expires_at'] },
      ],
    },
  },
  // API keys of registered agents: only their hashes (docs/protocol.md §7.2).
  'agent-key': {
    schema: {
      ...agentKey,
      indexes: [{ name: 'sitemap_ai_agent_keys_hash_idx', columns: ['key_hash'], type: 'unique' }],
    },
  },
  // Visits from AI assistants that front ends report (docs/protocol.md §10).
  'assistant-visit': {
    schema: {
      ...assistantVisit,
      indexes: [{ name: 'sitemap_ai_assistant_visits_at_idx', columns: ['at'] }],
    },
  },
  'access-log-salt': {
    schema: {
      ...accessLogSalt,
      indexes: [{ name: 'sitemap_ai_access_log_salts_day_idx', columns: ['day'], type: 'unique' }],
    },
  },
};
