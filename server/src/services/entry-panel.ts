import type { Core } from '@strapi/strapi';
import { errors } from '@strapi/utils';
import { USAGE_KINDS, type UsageKind } from '../../../shared/constants';
import { InvalidParameterError } from '../core/errors';
import { documentDrafts, nextState, versionString, type ItemChange } from '../core/items';
import { metadataLayer, resolvePolicy, type PolicyLayer } from '../core/policy';
import { lastRecordedReason } from '../core/tracking';
import type { EntryMetadata, EntrySource, MetadataOverride } from '../core/types';
import type {
  EntryPanelData,
  FragmentPreview,
  PolicySource,
} from '../../../shared/contracts/admin';
import { getService } from '../utils/get-service';

/** How the panel shows what publishing does to a fragment that is not excluded. */
const PREVIEW_STATE: Record<ItemChange, FragmentPreview['state']> = {
  added: 'new',
  content: 'changed',
  metadata: 'changed',
  none: 'unchanged',
};

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

/**
 * The editors' panel (README › In the admin, issue 4): the fragments of an entry's saved
 * draft as publishing it would publish them, compared with the tracked
 * state of what is published now — a dry run of the tracker's own pipeline, so the preview
 * cannot drift from what a publish records.
 */
export const createEntryPanelService = ({ strapi }: { strapi: Core.Strapi }) => {
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
      const tracker = getService(strapi, 'tracker');
      const type = settings.enabledTypes().find((t) => t.uid === uid);
      if (!type)
        throw new InvalidParameterError(
          'uid',
          `${uid} is not a content type enabled for the manifest`,
        );
      const config = settings.config();
      const scope = await tracker.scope(type);
      const { site, localized } = scope;
      const lang = localized ? (locale ?? site.defaultLocale) : site.defaultLocale;
      if (localized && !scope.langs.includes(lang)) {
        throw new InvalidParameterError(
          'locale',
          `"${lang}" is not a locale of this site (${scope.langs.join(', ')})`,
        );
      }

      // The tracker's own pipeline, as a dry run: what publishing this draft would publish.
      const preview = await tracker.preview(type, documentId, scope, lang);
      if (!preview)
        throw new errors.NotFoundError(
          `No ${uid} document "${documentId}"${localized ? ` in locale "${lang}"` : ''}`,
        );
      const entry = preview.draft;
      const problems = preview.problems.map((p) => ({ key: p.key, message: p.message }));
      if (preview.unfilled) {
        problems.push({
          key: 'pathPattern',
          message: `the draft cannot fill the path pattern "${type.policy.pathPattern}": it has no page URL and is not published`,
        });
      }
      const published = preview.drafts.filter((d) => d.lang === lang);
      const publishedById = new Map(published.map((d) => [d.id, d]));
      // The same items with the draft's exclusions lifted, to list what they hide.
      const listed = preview.unfilled
        ? []
        : documentDrafts(
            preview.entries.map((e) => (e === entry ? withoutExclusions(e) : e)),
            type.policy,
            site,
          ).drafts.filter((d) => d.lang === lang);

      const tracked = preview.states.filter((s) => s.lang === lang);
      const trackedById = new Map(tracked.map((s) => [s.itemId, s]));
      const live = (id: string) => {
        const state = trackedById.get(id);
        return state && !state.removed ? state : undefined;
      };
      const now = new Date().toISOString();

      const fragments: FragmentPreview[] = listed.map((all) => {
        const draft = publishedById.get(all.id) ?? all;
        const excluded = !publishedById.has(all.id);
        const state = live(draft.id);
        const key = draft.parent ? draft.id.slice(draft.parent.length + 1) : '';
        const override: MetadataOverride | undefined =
          entry.metadata.fragments?.[draft.id] ??
          (key ? entry.metadata.fragments?.[key] : undefined);
        // The versioning rule itself (docs/protocol.md §3.1) says whether publishing changes it.
        const { change } = nextState(state, draft, now);
        return {
          id: draft.id,
          key,
          type: draft.type,
          title: draft.item.title ?? '',
          url: draft.item.url,
          checksum: draft.checksum,
          state: excluded ? (state ? 'changed' : 'unchanged') : PREVIEW_STATE[change],
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

      // What the tracker would record as removed in this locale.
      const removed = preview.changelog
        .filter((c) => c.kind === 'removed' && c.lang === lang)
        .map(({ itemId }) => ({
          id: itemId,
          title: trackedById.get(itemId)?.data.title ?? itemId,
        }));

      const inherited = resolvePolicy([site.defaults, type.policy], site.defaults.license);
      const inheritedSources = policySources([
        ['site', site.defaults],
        ['type', type.policy],
      ]);
      const articleState = tracked.find((s) => s.type === 'article' && !s.removed);
      const reason = lastRecordedReason(tracked, lang);
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
        ...(reason ? { lastRecordedReason: reason } : {}),
      };
    },
  };
};

export type EntryPanelService = ReturnType<typeof createEntryPanelService>;
