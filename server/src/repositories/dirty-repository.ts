import type { Core } from '@strapi/strapi';

export const DIRTY_MARK_UID = 'plugin::sitemap-ai.dirty-mark' as const;

type Row = Record<string, unknown>;

export interface DirtyMark {
  id: number;
  uid: string;
  documentId: string;
  action: string;
  markedAt: string;
  attempts: number;
}

/** Entries whose change could not be recorded when it happened (docs/protocol.md §3.1: never lost silently). */
export const createDirtyRepository = ({ strapi }: { strapi: Core.Strapi }) => {
  const query = () => strapi.db.query(DIRTY_MARK_UID);
  return {
    async mark(uid: string, documentId: string, action: string, error: string): Promise<void> {
      await query().create({
        data: {
          source_uid: uid,
          source_document: documentId,
          action,
          marked_at: new Date().toISOString(),
          attempts: 0,
          last_error: error.slice(0, 2000),
        },
      });
    },

    async list(limit: number): Promise<DirtyMark[]> {
      const rows = (await query().findMany({ orderBy: { id: 'asc' }, limit })) as Row[];
      return rows.map((row) => ({
        id: Number(row.id),
        uid: String(row.source_uid),
        documentId: String(row.source_document),
        action: String(row.action ?? ''),
        markedAt: String(row.marked_at),
        attempts: Number(row.attempts ?? 0),
      }));
    },

    async clear(ids: readonly number[]): Promise<void> {
      if (ids.length > 0) await query().deleteMany({ where: { id: { $in: ids } } });
    },

    async failed(ids: readonly number[], error: string): Promise<void> {
      for (const id of ids) {
        const row = (await query().findOne({ where: { id } })) as Row | null;
        if (row)
          await query().update({
            where: { id },
            data: { attempts: Number(row.attempts ?? 0) + 1, last_error: error.slice(0, 2000) },
          });
      }
    },

    async count(): Promise<number> {
      return Number(await query().count());
    },

    /** When the oldest entry still waiting was marked (null when none is). */
    async oldestMarkedAt(): Promise<string | null> {
      const row = (await query().findOne({
        orderBy: { marked_at: 'asc' },
        select: ['marked_at'],
      })) as Row | null;
      return row ? String(row.marked_at) : null;
    },
  };
};

export type DirtyRepository = ReturnType<typeof createDirtyRepository>;
