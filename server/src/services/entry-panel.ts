import type { Core } from '@strapi/strapi';
import { errors } from '@strapi/utils';
import { USAGE_KINDS, type UsageKind } from '../../../shared/constants';
import { InvalidParameterError } from '../core/errors';
import {
  buildEntryItems,
  finalizeDraft,
  linkTranslations,
  versionString,
  type SiteContext,
} from '../core/items';
import { metadataLayer, resolvePolicy, type PolicyLayer } from '../core/policy';
import type { EntryMetadata, EntrySource, ItemDraft, MetadataOverride } from '../core/types';
import { createSourceRepository } from '../repositories/source-repository';
import { createStateRepository } from '../repositories/state-repository';
import type {
  EntryPanelData,
  FragmentPreview,
  PolicySource,
} from '../../../shared/contracts/admin';
import { getService } from '../utils/get-service';
import type { EnabledType } from './config';

type Sources = { license: PolicySource; usage: Record<UsageKind, PolicySource> };

/** Which layer of the cascade (docs/protocol.md §2) gives each effective value: the last one that sets it. */
function policySources(layers: readonly [PolicySource, PolicyLayer | undefined][]): Sources {
  const sources: Sources = {
    license: 'site',
    usage: { train: 'site', infer: 'site', cache: 'site', redistribute: 'site' },
  };
  for (const [source, layer] of layers) {
    if (!layer) continue;
    if (layer.license) sources.license = source;
    for (const kind of USAGE_KINDS) if (layer.usage?.[kind]) sources.usage[kind] = source;
  }
  return sources;
}

/** The same items with every fragment's `exclude` and the entry's `sensitive` lifted, to list what they hide. */
function withoutExclusions(entry: EntrySource): EntrySource {
  const { sensitive: _sensitive, fragments, ...rest } = entry.metadata;
  const metadata: EntryMetadata = { ...rest };
  if (fragments) {
    metadata.fragments = Object.fromEntries(
      Object.entries(fragments).map(([id, override]) => {
        const { exclude: _exclude, ...kept } = override;
        return [id, kept];
      }),
    );
  }
  return { ...entry, metadata };
}

/** Items of a draft exactly as publishing it would give them: the same core functions as the tracker, translations linked. */
function publishedItems(
  entry: EntrySource,
  reference: EntrySource | null,
  type: EnabledType,
  site: SiteContext,
): ItemDraft[] | null {
  let built = buildEntryItems(entry, type.policy, site);
  if (built === null) return null;
  const referenceItems = reference ? buildEntryItems(reference, type.policy, site) : null;
  if (referenceItems) built = linkTranslations(referenceItems, built);
  return built.map(finalizeDraft);
}

/**
 * The editors' panel (README › In the admin, issue 4): the fragments of an entry's saved
 * draft as publishing it would publish them, compared with the tracked
 * state of what is published now.
 */
export const createEntryPanelService = ({ strapi }: { strapi: Core.Strapi }) => {
  const sources = createSourceRepository({ strapi });
  const states = createStateRepository({ strapi });

  return {
    /**
     * Panel data of one document in one locale. `locale` defaults to the
     * site's default locale; it is ignored for a type that is not localized.
     * 400 when the type is not enabled or the locale is not the site's, 404
     * when there is no draft of that document in that locale.
     */
    async panel(
      uid: string,
      documentId: string,
      locale: string | undefined,
    ): Promise<EntryPanelData> {
      const settings = getService(strapi, 'config');
      const type = settings.enabledTypes().find((t) => t.uid === uid);
      if (!type)
        throw new InvalidParameterError(
          'uid',
          `${uid} is not a content type enabled for the manifest`,
        );
      const config = settings.config();
      const { codes, defaultLocale } = await sources.locales(config.defaultLocale ?? 'en');
      const site = settings.site(defaultLocale);
      const localized = sources.isLocalized(uid);
      const lang = localized ? (locale ?? site.defaultLocale) : site.defaultLocale;
      if (localized && !codes.includes(lang)) {
        throw new InvalidParameterError(
          'locale',
          `"${lang}" is not a locale of this site (${codes.join(', ')})`,
        );
      }

      const found = await sources.draftOne(
        uid,
        type.policy.typeKey,
        type.map,
        documentId,
        localized ? lang : undefined,
        lang,
      );
      if (!found)
        throw new errors.NotFoundError(
          `No ${uid} document "${documentId}"${localized ? ` in locale "${lang}"` : ''}`,
        );
      const { entry } = found;
      const problems = found.problems.map((p) => ({ key: p.key, message: p.message }));

      // As the tracker does: a translation's items point at the published items of the default locale.
      const reference =
        localized && lang !== site.defaultLocale
          ? ((
              await sources.publishedOne(
                uid,
                type.policy.typeKey,
                type.map,
                documentId,
                site.defaultLocale,
                site.defaultLocale,
              )
            )?.entry ?? null)
          : null;
      const published = publishedItems(entry, reference, type, site);
      if (published === null) {
        problems.push({
          key: 'pathPattern',
          message: `the draft cannot fill the path pattern "${type.policy.pathPattern}": it has no page URL and is not published`,
        });
      }
      const publishedById = new Map((published ?? []).map((d) => [d.id, d]));
      const listed =
        published === null
          ? []
          : (publishedItems(withoutExclusions(entry), reference, type, site) ?? []);

      const tracked = (await states.forDocuments(uid, [documentId])).filter((s) => s.lang === lang);
      const trackedById = new Map(tracked.map((s) => [s.itemId, s]));
      const live = (id: string) => {
        const state = trackedById.get(id);
        return state && !state.removed ? state : undefined;
      };

      const fragments: FragmentPreview[] = listed.map((all) => {
        const draft = publishedById.get(all.id) ?? all;
        const excluded = !publishedById.has(all.id);
        const state = live(draft.id);
        const key = draft.parent ? draft.id.slice(draft.parent.length + 1) : '';
        const override: MetadataOverride | undefined =
          entry.metadata.fragments?.[draft.id] ??
          (key ? entry.metadata.fragments?.[key] : undefined);
        let change: FragmentPreview['state'];
        if (excluded) change = state ? 'changed' : 'unchanged';
        else if (!state) change = 'new';
        else
          change =
            state.checksum !== draft.checksum || state.metaHash !== draft.metaHash
              ? 'changed'
              : 'unchanged';
        return {
          id: draft.id,
          key,
          type: draft.type,
          title: draft.item.title ?? '',
          url: draft.item.url,
          checksum: draft.checksum,
          state: change,
          published: state ? { version: versionString(state), checksum: state.checksum } : null,
          license: draft.item.license,
          usage: { ...draft.item.usage },
          sources: policySources([
            ['site', site.defaults],
            ['type', type.policy],
            ['entry', metadataLayer(entry.metadata)],
            ['fragment', metadataLayer(override)],
          ]),
          ...(excluded ? { excluded: true } : {}),
        };
      });

      const removed = tracked
        .filter((s) => !s.removed && !publishedById.has(s.itemId))
        .map((s) => ({ id: s.itemId, title: s.data.title ?? s.itemId }));

      const inherited = resolvePolicy([site.defaults, type.policy], site.defaults.license);
      const inheritedSources = policySources([
        ['site', site.defaults],
        ['type', type.policy],
      ]);
      const articleState = tracked.find((s) => s.type === 'article' && !s.removed);
      // The reason the tracker compares a new one with (core/tracking.ts freshReason): the last live page's, else the last removed one's.
      const pages = tracked.filter((s) => s.type === 'article');
      const pageState =
        pages.filter((s) => !s.removed).pop() ?? pages.filter((s) => s.removed).pop();
      return {
        uid,
        documentId,
        locale: localized ? lang : null,
        inherited: {
          license: inherited.license,
          usage: inherited.usage,
          sources: inheritedSources,
        },
        licenses: config.licenses.map((l) => ({ uri: l.uri, label: l.label })),
        fragments,
        removed,
        publishedVersion: articleState ? versionString(articleState) : null,
        sensitive: entry.metadata.sensitive === true,
        problems,
        ...(pageState?.reason ? { lastRecordedReason: pageState.reason } : {}),
      };
    },
  };
};

export type EntryPanelService = ReturnType<typeof createEntryPanelService>;
