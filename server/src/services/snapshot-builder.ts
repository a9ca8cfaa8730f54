import type { Core } from '@strapi/strapi';
import { finalizeDraft, buildEntryItems, linkTranslations, storedItem, versionItem } from '../core/items';
import type { ItemDraft } from '../core/types';
import { createItemRepository, type ItemVersion, type NewItemVersion } from '../repositories/item-repository';
import { createSnapshotRepository, type SnapshotRecord } from '../repositories/snapshot-repository';
import { createSourceRepository } from '../repositories/source-repository';
import { getService } from '../utils/get-service';

export interface RebuildOptions {
  trigger?: string;
}

export interface RebuildResult {
  snapshot: SnapshotRecord;
  /** True when nothing changed and the previous snapshot stays current. */
  skipped: boolean;
  /** Entries whose content could not be fragmented: their previous items are kept. */
  failures: { uid: string; documentId: string; lang: string; message: string }[];
}

/**
 * Builds the next snapshot (SPEC §6): fragments published content, versions
 * every item against the open versions, closes what changed or disappeared
 * and inserts new versions, then publishes the snapshot row. Work on storage
 * is proportional to the change; readers of the previous snapshot never see a
 * half-built one.
 */
export const createSnapshotBuilder = ({ strapi }: { strapi: Core.Strapi }) => {
  const settings = {
    config: () => getService(strapi, 'settings').config(),
    site: (defaultLocale: string) => getService(strapi, 'settings').site(defaultLocale),
    enabledTypes: () => getService(strapi, 'settings').enabledTypes(),
  };
  const items = createItemRepository({ strapi });
  const snapshots = createSnapshotRepository({ strapi });
  const sources = createSourceRepository({ strapi });
  let running: Promise<RebuildResult> | null = null;

  async function collectDrafts(failures: RebuildResult['failures']): Promise<ItemDraft[]> {
    const config = settings.config();
    const { codes, defaultLocale } = await sources.locales(config.defaultLocale ?? 'en');
    const site = settings.site(defaultLocale);
    const drafts: ItemDraft[] = [];
    const seen = new Set<string>();
    for (const type of settings.enabledTypes()) {
      const localized = sources.isLocalized(type.uid);
      const locales = localized ? codes : [site.defaultLocale];
      const reference = new Map<string, ItemDraft[]>();
      for (const lang of locales) {
        for await (const { entry, problems } of sources.published(type.uid, type.policy.typeKey, type.map, localized ? lang : undefined, lang)) {
          for (const problem of problems) {
            strapi.log.warn(`[sitemap-ai] ${type.uid} ${entry.documentId} (${lang}): metadata "${problem.key}" ignored: ${problem.message}`);
          }
          let built: ItemDraft[] | null;
          try {
            built = buildEntryItems(entry, type.policy, site);
          } catch (error) {
            const message = error instanceof Error ? error.message : String(error);
            failures.push({ uid: type.uid, documentId: entry.documentId, lang, message });
            strapi.log.error(`[sitemap-ai] ${type.uid} ${entry.documentId} (${lang}) kept at its previous state: ${message}`);
            continue;
          }
          if (built === null) {
            strapi.log.warn(`[sitemap-ai] ${type.uid} ${entry.documentId} (${lang}) left out: its path pattern "${type.policy.pathPattern}" cannot be filled`);
            continue;
          }
          if (lang === site.defaultLocale) reference.set(entry.documentId, built);
          else {
            const ref = reference.get(entry.documentId);
            if (ref) built = linkTranslations(ref, built);
          }
          for (const draft of built) {
            if (seen.has(draft.id)) {
              strapi.log.warn(`[sitemap-ai] duplicate item id "${draft.id}" (${type.uid} ${entry.documentId}) left out`);
              continue;
            }
            seen.add(draft.id);
            drafts.push(finalizeDraft(draft));
          }
        }
      }
    }
    return drafts;
  }

  async function build(options: RebuildOptions): Promise<RebuildResult> {
    const started = Date.now();
    const previous = await snapshots.latest();
    const seq = (previous?.seq ?? 0) + 1;
    await items.discardUnpublished(seq);
    const failures: RebuildResult['failures'] = [];
    const drafts = await collectDrafts(failures);
    const open = new Map<string, ItemVersion>((await items.openVersions()).map((v) => [v.itemId, v]));
    const kept = new Set(failures.map((f) => `${f.uid}|${f.documentId}|${f.lang}`));
    const now = new Date(started).toISOString();

    const inserts: NewItemVersion[] = [];
    const closes: number[] = [];
    const changes = { added: 0, changed: 0, removed: 0 };
    const counts: Record<string, number> = {};
    const present = new Set<string>();
    for (const draft of drafts) {
      present.add(draft.id);
      counts[draft.type] = (counts[draft.type] ?? 0) + 1;
      const current = open.get(draft.id);
      const { state, change } = versionItem(draft, current?.state, now);
      if (change === 'none') continue;
      if (current) closes.push(current.rowId);
      if (change === 'added') changes.added += 1;
      else changes.changed += 1;
      inserts.push({
        itemId: draft.id,
        seqFrom: seq,
        type: draft.type,
        lang: draft.lang,
        parent: draft.parent,
        sourceUid: draft.sourceUid,
        sourceDocument: draft.documentId,
        state,
        stabilityPin: draft.stabilityPin,
        data: storedItem(draft, state),
        content: draft.content,
      });
    }
    for (const version of open.values()) {
      if (present.has(version.itemId)) continue;
      if (kept.has(`${version.sourceUid}|${version.sourceDocument}|${version.lang}`)) {
        counts[version.type] = (counts[version.type] ?? 0) + 1;
        continue;
      }
      closes.push(version.rowId);
      changes.removed += 1;
    }

    if (previous && inserts.length === 0 && closes.length === 0) {
      return { snapshot: previous, skipped: true, failures };
    }
    await items.close(closes, seq);
    await items.insert(inserts);
    const record: SnapshotRecord = {
      seq,
      builtAt: now,
      itemCount: Object.values(counts).reduce((a, b) => a + b, 0),
      counts,
      changes,
      trigger: options.trigger ?? 'manual',
      durationMs: Date.now() - started,
    };
    await snapshots.publish(record);
    const oldest = await snapshots.collect(settings.config().snapshotRetention);
    if (oldest !== null) await items.collect(oldest);
    strapi.log.info(
      `[sitemap-ai] snapshot ${seq} published: ${record.itemCount} items (+${changes.added} ~${changes.changed} -${changes.removed}) in ${record.durationMs} ms`,
    );
    return { snapshot: record, skipped: false, failures };
  }

  return {
    /** Build the next snapshot; concurrent calls in this process share one build. */
    rebuild(options: RebuildOptions = {}): Promise<RebuildResult> {
      if (!running) {
        running = build(options).finally(() => {
          running = null;
        });
      }
      return running;
    },
  };
};

export type SnapshotBuilder = ReturnType<typeof createSnapshotBuilder>;
