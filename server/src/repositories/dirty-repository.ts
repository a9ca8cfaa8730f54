import type { Core } from '@strapi/strapi';
import { WRITE_BATCH } from './json';

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

/**
 * Documents whose change is not recorded yet (docs/protocol.md §3.1: never lost silently): marked
 * when a publish queues its tracking (no error; cleared once tracked) and when tracking failed
 * (with the error; the next rebuild retries). Any instance's rebuild records what is marked.
 */
export const createDirtyRepository = ({ strapi }: { strapi: Core.Strapi }) => {
  const query = () => strapi.db.query(DIRTY_MARK_UID);
  return {
    /**
     * Mark a document: `error` null when its tracking is only queued, else why it failed. Returns
     * the mark's id. One plain INSERT (no document id, lifecycles or read-back): it is on every
     * publish's path, where it is written by `db`, the publish's own transaction.
     */
    async mark(
      uid: string,
      documentId: string,
      action: string,
      error: string | null,
      db: Core.Strapi['db']['connection'] = strapi.db.connection,
    ): Promise<number> {
      const now = new Date();
      const inserted = (await db(strapi.db.metadata.get(DIRTY_MARK_UID).tableName).insert(
        {
          source_uid: uid,
          source_document: documentId,
          action,
          marked_at: now.toISOString(),
          attempts: 0,
          last_error: error === null ? null : error.slice(0, 2000),
          created_at: now,
          updated_at: now,
        },
        ['id'],
      )) as unknown[];
      // PostgreSQL and SQLite return the row, MySQL the id.
      const first = inserted[0];
      return Number(typeof first === 'object' && first !== null ? (first as Row).id : first);
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
      for (let i = 0; i < ids.length; i += WRITE_BATCH)
        await query().deleteMany({ where: { id: { $in: ids.slice(i, i + WRITE_BATCH) } } });
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

    /** Entries whose tracking failed and waits for a rebuild (queued ones are not counted). */
    async count(): Promise<number> {
      return Number(await query().count({ where: { last_error: { $notNull: true } } }));
    },

    /** When the oldest entry still waiting (queued or failed) was marked (null when none is). */
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
