import type { Core } from '@strapi/strapi';

export const AGENT_KEY_UID = 'plugin::sitemap-ai.agent-key' as const;

/** A registered agent's key as stored: never the key itself, only its SHA-256 and first characters. */
export interface AgentKeyRecord {
  id: number;
  label: string;
  keyHash: string;
  keyPrefix: string;
  rateMax: number | null;
  issuedAt: string;
  revokedAt: string | null;
}

type Row = Record<string, unknown>;

function toRecord(row: Row): AgentKeyRecord {
  return {
    id: Number(row.id),
    label: String(row.label),
    keyHash: String(row.key_hash),
    keyPrefix: String(row.key_prefix),
    rateMax: row.rate_max === null || row.rate_max === undefined ? null : Number(row.rate_max),
    issuedAt: String(row.issued_at),
    revokedAt: row.revoked_at ? String(row.revoked_at) : null,
  };
}

/** The registered agents' keys (docs/protocol.md §7.2). */
export const createAgentKeyRepository = ({ strapi }: { strapi: Core.Strapi }) => {
  const keys = () => strapi.db.query(AGENT_KEY_UID);
  return {
    async list(): Promise<AgentKeyRecord[]> {
      return ((await keys().findMany({ orderBy: { id: 'desc' }, limit: 1000 })) as Row[]).map(
        toRecord,
      );
    },
    async byHash(hash: string): Promise<AgentKeyRecord | null> {
      const row = (await keys().findOne({ where: { key_hash: hash } })) as Row | null;
      return row ? toRecord(row) : null;
    },
    async create(input: Omit<AgentKeyRecord, 'id' | 'revokedAt'>): Promise<AgentKeyRecord> {
      const row = (await keys().create({
        data: {
          label: input.label,
          key_hash: input.keyHash,
          key_prefix: input.keyPrefix,
          rate_max: input.rateMax,
          issued_at: input.issuedAt,
          revoked_at: null,
        },
      })) as Row;
      return toRecord(row);
    },
    /** Revoke a key; false when there is no such key. */
    async revoke(id: number, at: string): Promise<AgentKeyRecord | null> {
      const row = (await keys().findOne({ where: { id } })) as Row | null;
      if (!row) return null;
      if (row.revoked_at) return toRecord(row);
      return toRecord((await keys().update({ where: { id }, data: { revoked_at: at } })) as Row);
    },
  };
};
