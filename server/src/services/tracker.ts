import { repositories } from '../repositories';
import type { Core } from '@strapi/strapi';
import { DAY_MS } from '../../../shared/constants';
import { documentDrafts, type SiteContext } from '../core/items';
import type { MetadataProblem } from '../core/metadata';
import {
  diffDocument,
  ITEM_CHANGELOG_DAYS,
  ITEM_CHANGELOG_MAX,
  type AliasRecord,
  type ChangelogRecord,
  type StateWrite,
  type TrackedState,
} from '../core/tracking';
import type { EntrySource, ItemDraft } from '../core/types';
import { StateConflictError } from '../repositories/state-repository';
import { getService } from '../utils/get-service';
import type { EnabledType } from './config';

const MAX_ATTEMPTS = 6;

/** Document actions that can change what is published. */
const PUBLISHED_ACTIONS = new Set(['publish', 'unpublish', 'delete', 'discardDraft']);
/** Without draft & publish, saving is publishing. */
const LIVE_ACTIONS = new Set(['create', 'update', 'delete', 'clone']);

/** A document-service action that has just run (the change-tracking middleware). */
export interface DocumentAction {
  uid: string;
  action: string;
  documentId: string | undefined;
  draftAndPublish: boolean;
}

const BATCH = 100;

/** The locales a document publishes in (the site's default first) and the site context. */
export interface DocumentScope {
  langs: string[];
  localized: boolean;
  site: SiteContext;
}

/** What publishing a saved draft would publish and record (the tracker's dry run). */
export interface DocumentPreview {
  /** The entries read: the draft in its locale, the published versions of the others. */
  entries: EntrySource[];
  draft: EntrySource;
  /** What is wrong with the draft's editor values (docs/protocol.md §2). */
  problems: MetadataProblem[];
  /** Items the document would publish, every locale, translations linked. */
  drafts: ItemDraft[];
  /** The draft cannot fill its type's path pattern: it would publish nothing. */
  unfilled: boolean;
  /** The tracked states of the document's items, every locale. */
  states: TrackedState[];
  /** The changelog tracking the publish would record (nothing is written). */
  changelog: ChangelogRecord[];
}

export interface TrackResult {
  changelog: ChangelogRecord[];
  /** Items whose state changed (the next snapshot publishes them). */
  changed: number;
}

/**
 * Change tracking (docs/protocol.md §3.1): compares what a document publishes now with the
 * tracked state of its items and records every change with its reason. Used
 * by the document-service middleware right after a publish, unpublish or
 * delete, and by the rebuild to reconcile what could not be recorded then. One pipeline —
 * locales, the published (or, for a preview, draft) read, the items with their translations
 * linked, the comparison — serves all three and the editors' panel, which runs it dry.
 */
export const createTracker = ({ strapi }: { strapi: Core.Strapi }) => {
  const sources = repositories(strapi).sources;
  const states = repositories(strapi).states;
  const settings = () => getService(strapi, 'config');
  /** One tracking run per document at a time in this process. */
  const queues = new Map<string, Promise<unknown>>();

  /** The locales a document of `type` publishes in (the site's default first) and the site context. */
  async function scopeOf(type: EnabledType): Promise<DocumentScope> {
    const config = settings().config();
    const { codes, defaultLocale } = await sources.locales(config.defaultLocale ?? 'en');
    const site = settings().site(defaultLocale);
    const localized = sources.isLocalized(type.uid);
    return { langs: localized ? codes : [site.defaultLocale], localized, site };
  }

  /** Items a document publishes from its entries; an entry that cannot be placed is logged when `log`. */
  function draftsOf(
    type: EnabledType,
    entries: readonly EntrySource[],
    site: SiteContext,
    log = true,
  ): { drafts: ItemDraft[]; unfilled: EntrySource[] } {
    const built = documentDrafts(entries, type.policy, site);
    if (log)
      for (const entry of built.unfilled)
        strapi.log.warn(
          `[sitemap-ai] ${type.uid} ${entry.documentId} (${entry.lang}) left out: its path pattern "${type.policy.pathPattern}" cannot be filled`,
        );
    return built;
  }

  /**
   * One document's entries in every locale of `scope`: the published versions, except the
   * locale `draftLang` whose saved draft is read instead (what publishing it would publish).
   */
  async function readDocument(
    type: EnabledType,
    documentId: string,
    scope: DocumentScope,
    draftLang?: string,
  ): Promise<{
    entries: EntrySource[];
    draft: { entry: EntrySource; problems: MetadataProblem[] } | null;
  }> {
    const entries: EntrySource[] = [];
    let draft: { entry: EntrySource; problems: MetadataProblem[] } | null = null;
    for (const lang of scope.langs) {
      const read = lang === draftLang ? sources.draftOne : sources.publishedOne;
      const found = await read(
        type.uid,
        type.policy.typeKey,
        type.map,
        documentId,
        scope.localized ? lang : undefined,
        lang,
      );
      if (lang === draftLang) draft = found;
      if (found) entries.push(found.entry);
    }
    return { entries, draft };
  }

  interface DocumentRead {
    documentId: string;
    entries: EntrySource[];
    drafts: ItemDraft[];
    langs: string[];
  }

  /**
   * What tracking `documents` (of one type) writes: their new states, changelog entries and
   * aliases, from the states and recent changelog read for all of them at once.
   */
  async function diffDocuments(uid: string, documents: readonly DocumentRead[], cause?: string) {
    const all = await states.forDocuments(
      uid,
      documents.map((d) => d.documentId),
    );
    const currentOf = new Map<string, (TrackedState & { pending: boolean })[]>();
    for (const state of all) {
      const list = currentOf.get(state.sourceDocument);
      if (list) list.push(state);
      else currentOf.set(state.sourceDocument, [state]);
    }
    const now = new Date().toISOString();
    const since = new Date(Date.parse(now) - ITEM_CHANGELOG_DAYS * DAY_MS).toISOString();
    const ids = new Set(all.map((s) => s.itemId));
    for (const document of documents) for (const draft of document.drafts) ids.add(draft.id);
    const recent = await states.recentChangelog([...ids], since, ITEM_CHANGELOG_MAX);
    const print = settings().policyFingerprint();
    const result = {
      writes: [] as StateWrite[],
      changelog: [] as ChangelogRecord[],
      aliases: [] as AliasRecord[],
      changed: 0,
      states: all,
    };
    for (const { documentId, entries, drafts, langs } of documents) {
      const current = currentOf.get(documentId) ?? [];
      const diff = diffDocument({
        uid,
        documentId,
        drafts,
        langs,
        states: current,
        reasons: Object.fromEntries(entries.map((e) => [e.lang, e.metadata.reason])),
        recent,
        now,
        cause,
      });
      // Every state written now was computed under today's policy; a pending state computed
      // under another one whose result is the same is stamped so the builder may publish it.
      const written = new Set(diff.writes.map((w) => w.state.itemId));
      const restamps = current
        .filter((s) => !written.has(s.itemId) && s.pending && s.policyPrint !== print)
        .map((s) => ({ state: { ...s, revision: s.revision + 1 }, expectedRevision: s.revision }));
      for (const write of [...diff.writes, ...restamps])
        result.writes.push({ ...write, state: { ...write.state, policyPrint: print } });
      result.changelog.push(...diff.changelog);
      result.aliases.push(...diff.aliases);
      result.changed += diff.writes.length;
    }
    return result;
  }

  async function apply(
    uid: string,
    documentId: string,
    read: () => Promise<{ entries: EntrySource[]; drafts: ItemDraft[]; langs: string[] }>,
    cause: string | undefined,
  ): Promise<TrackResult> {
    for (let attempt = 1; ; attempt += 1) {
      const diff = await diffDocuments(uid, [{ documentId, ...(await read()) }], cause);
      try {
        await states.write(diff.writes, diff.changelog, diff.aliases);
        return { changelog: diff.changelog, changed: diff.changed };
      } catch (error) {
        if (!(error instanceof StateConflictError) || attempt >= MAX_ATTEMPTS) throw error;
      }
    }
  }

  function serialized<T>(key: string, run: () => Promise<T>): Promise<T> {
    const previous = queues.get(key) ?? Promise.resolve();
    const next = previous.catch(() => undefined).then(run);
    queues.set(key, next);
    void next.finally(() => {
      if (queues.get(key) === next) queues.delete(key);
    });
    return next;
  }

  const dirty = repositories(strapi).dirty;

  const tracker = {
    /**
     * After a document action (docs/protocol.md §3.1): a publish, unpublish, delete or discard of
     * a tracked type — or any save of a type without draft & publish — is recorded once the
     * surrounding transaction commits, outside it, so that recording can never roll back the
     * save. Other actions are ignored. Never throws (recordChange keeps the dirty fallback).
     */
    async documentActed({
      uid,
      action,
      documentId,
      draftAndPublish,
    }: DocumentAction): Promise<void> {
      if (!documentId || !settings().trackedUids().has(uid)) return;
      if (!(draftAndPublish ? PUBLISHED_ACTIONS : LIVE_ACTIONS).has(action)) return;
      const run = () => tracker.recordChange(uid, documentId, action);
      if (strapi.db.inTransaction()) {
        await strapi.db.transaction(async ({ onCommit }) => {
          onCommit(() => void run());
        });
      } else {
        await run();
      }
    },

    /**
     * Record an editor's action on a document now; what cannot be recorded is marked dirty (and
     * logged) for the next rebuild to reconcile. Never throws: the editor's save must not fail.
     */
    async recordChange(uid: string, documentId: string, action: string): Promise<void> {
      try {
        await tracker.trackDocument(uid, documentId);
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        strapi.log.warn(
          `[sitemap-ai] change of ${uid} ${documentId} (${action}) not recorded now, marked for the next rebuild: ${message}`,
        );
        try {
          await dirty.mark(uid, documentId, action, message);
        } catch (markError) {
          strapi.log.error(
            `[sitemap-ai] could not mark ${uid} ${documentId} dirty either (${markError instanceof Error ? markError.message : String(markError)}); a full rebuild will reconcile it`,
          );
        }
      }
    },

    /** Track one document (all its locales) now. */
    trackDocument(uid: string, documentId: string, cause?: string): Promise<TrackResult> {
      return serialized(`${uid}|${documentId}`, async () => {
        const type = settings()
          .enabledTypes()
          .find((t) => t.uid === uid);
        return apply(
          uid,
          documentId,
          async () => {
            if (!type)
              return {
                entries: [],
                drafts: [],
                langs: [
                  ...new Set((await states.forDocuments(uid, [documentId])).map((s) => s.lang)),
                ],
              };
            const scope = await scopeOf(type);
            const { entries } = await readDocument(type, documentId, scope);
            return {
              entries,
              drafts: draftsOf(type, entries, scope.site).drafts,
              langs: scope.langs,
            };
          },
          cause,
        );
      });
    },

    /** The locales a document of an enabled type publishes in, and the site context. */
    scope: (type: EnabledType): Promise<DocumentScope> => scopeOf(type),

    /**
     * A dry run of tracking (the editors' panel, README › In the admin): what publishing the saved
     * draft of `lang` would publish — the document read and built exactly as a publish tracks it,
     * its other locales as published — and what the tracker would record, without writing
     * anything. Null when the document has no draft in `lang`.
     */
    async preview(
      type: EnabledType,
      documentId: string,
      scope: DocumentScope,
      lang: string,
    ): Promise<DocumentPreview | null> {
      const { entries, draft } = await readDocument(type, documentId, scope, lang);
      if (!draft) return null;
      const { drafts, unfilled } = draftsOf(type, entries, scope.site, false);
      const diff = await diffDocuments(type.uid, [
        { documentId, entries, drafts, langs: scope.langs },
      ]);
      return {
        entries,
        draft: draft.entry,
        problems: draft.problems,
        drafts,
        unfilled: unfilled.includes(draft.entry),
        states: diff.states,
        changelog: diff.changelog,
      };
    },

    /**
     * Compare every published document of every enabled type, and every
     * tracked document that is no longer published or enabled, with its
     * state. Used for the first build and after a change of settings.
     */
    async reconcileAll(cause?: string): Promise<{
      documents: number;
      changed: number;
      failures: { uid: string; documentId: string; message: string }[];
    }> {
      let documents = 0;
      let changed = 0;
      const failures: { uid: string; documentId: string; message: string }[] = [];
      const seen = new Set<string>();
      /**
       * Compare a batch of documents (all their locales' entries): read, compared and written in
       * one transaction; when another tracker (a publish meanwhile) wrote one of them first, they
       * are done one by one.
       */
      const compare = async (
        type: EnabledType,
        scope: DocumentScope,
        byDocument: ReadonlyMap<string, EntrySource[]>,
      ): Promise<void> => {
        const { langs } = scope;
        const batch = [...byDocument.keys()];
        for (const documentId of batch) seen.add(`${type.uid}|${documentId}`);
        documents += batch.length;
        try {
          const diff = await diffDocuments(
            type.uid,
            batch.map((documentId) => {
              const entries = byDocument.get(documentId)!;
              return {
                documentId,
                entries,
                drafts: draftsOf(type, entries, scope.site).drafts,
                langs,
              };
            }),
            cause,
          );
          await states.write(diff.writes, diff.changelog, diff.aliases);
          changed += diff.changed;
          return;
        } catch (error) {
          if (!(error instanceof StateConflictError)) {
            strapi.log.warn(
              `[sitemap-ai] a batch of ${batch.length} ${type.uid} documents is tracked one by one: ${error instanceof Error ? error.message : String(error)}`,
            );
          }
        }
        for (const documentId of batch) {
          const entries = byDocument.get(documentId)!;
          try {
            const result = await serialized(`${type.uid}|${documentId}`, () =>
              apply(
                type.uid,
                documentId,
                async () => ({
                  entries,
                  drafts: draftsOf(type, entries, scope.site).drafts,
                  langs,
                }),
                cause,
              ),
            );
            changed += result.changed;
          } catch (error) {
            const message = error instanceof Error ? error.message : String(error);
            failures.push({ uid: type.uid, documentId, message });
            strapi.log.error(
              `[sitemap-ai] ${type.uid} ${documentId} kept at its previous state: ${message}`,
            );
          }
        }
      };

      // Streamed a batch of documents at a time, so memory does not grow with the site: each
      // locale's published entries in document order; a document first met in one locale is
      // compared with its entries of every locale, read for its batch.
      for (const type of settings().enabledTypes()) {
        const scope = await scopeOf(type);
        const { langs, localized } = scope;
        const { uid, map } = type;
        const { typeKey } = type.policy;
        const done = new Set<string>();
        const compareFirstMet = async (first: Map<string, EntrySource>, lang: string) => {
          const ids = [...first.keys()];
          const byLang = new Map<string, Map<string, EntrySource>>([[lang, first]]);
          for (const other of langs) {
            if (other === lang) continue;
            const entries = await sources.publishedOf(
              uid,
              typeKey,
              map,
              ids,
              localized ? other : undefined,
              other,
            );
            byLang.set(other, new Map(entries.map((e) => [e.documentId, e])));
          }
          const byDocument = new Map<string, EntrySource[]>();
          for (const id of ids) {
            done.add(id);
            byDocument.set(
              id,
              langs.flatMap((l) => {
                const entry = byLang.get(l)?.get(id);
                return entry ? [entry] : [];
              }),
            );
          }
          await compare(type, scope, byDocument);
        };
        for (const lang of langs) {
          let first = new Map<string, EntrySource>();
          for await (const { entry } of sources.published(
            uid,
            typeKey,
            map,
            localized ? lang : undefined,
            lang,
          )) {
            if (done.has(entry.documentId)) continue;
            first.set(entry.documentId, entry);
            if (first.size >= BATCH) {
              await compareFirstMet(first, lang);
              first = new Map();
            }
          }
          if (first.size > 0) await compareFirstMet(first, lang);
        }
      }
      for (const { uid, documentId } of await states.liveDocuments()) {
        if (seen.has(`${uid}|${documentId}`)) continue;
        documents += 1;
        try {
          changed += (await tracker.trackDocument(uid, documentId, cause)).changed;
        } catch (error) {
          failures.push({
            uid,
            documentId,
            message: error instanceof Error ? error.message : String(error),
          });
        }
      }
      return { documents, changed, failures };
    },
  };
  return tracker;
};

export type Tracker = ReturnType<typeof createTracker>;
