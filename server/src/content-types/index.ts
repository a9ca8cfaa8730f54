import accessLogEntry from './access-log-entry/schema.json';
import accessLogSalt from './access-log-salt/schema.json';
import agentKey from './agent-key/schema.json';
import alias from './alias/schema.json';
import assistantVisit from './assistant-visit/schema.json';
import blob from './blob/schema.json';
import dirtyMark from './dirty-mark/schema.json';
import lock from './lock/schema.json';
import rateCounter from './rate-counter/schema.json';
import snapshot from './snapshot/schema.json';
import webhookDelivery from './webhook-delivery/schema.json';

/**
 * The plugin's own tables kept as content types, hidden from the Content Manager; those with a row
 * per item or change are plain models (repositories/models.ts).
 */
export default {
  snapshot: {
    schema: {
      ...snapshot,
      indexes: [{ name: 'sitemap_ai_snapshots_seq_idx', columns: ['seq'], type: 'unique' }],
    },
  },
  // Item data and canonical texts, once per distinct value: states and versions hold their keys.
  blob: {
    schema: {
      ...blob,
      indexes: [{ name: 'sitemap_ai_blobs_key_idx', columns: ['key'], type: 'unique' }],
    },
  },
  'dirty-mark': { schema: dirtyMark },
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
