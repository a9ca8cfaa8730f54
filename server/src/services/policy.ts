import { repositories } from '../repositories';
import type { Core } from '@strapi/strapi';
import { stableEqual, stableStringify } from '../core/canonical';
import { cascadePolicy, overrideOf } from '../core/policy';
import type { ManifestItem } from '../core/types';
import { getService } from '../utils/get-service';

/** An item as published (or about to be): what the policy check needs of it. */
export interface PolicyCandidate {
  itemId: string;
  parent?: string;
  sourceUid: string;
  sourceDocument: string;
  lang: string;
  data: Pick<ManifestItem, 'license' | 'usage'>;
}

/**
 * Policy integrity (README "Policy integrity"): whether items say the licence and usage that the
 * current settings and the entries as published now resolve to, and whether they may be
 * published at all. The builder checks every item before it publishes it; the readiness
 * checklist checks the whole published snapshot.
 */
export const createPolicyService = ({ strapi }: { strapi: Core.Strapi }) => {
  const sources = repositories(strapi).sources;
  return {
    /**
     * The candidates that break the policy, each with why: a disabled type, an entry no longer
     * published or marked sensitive, an excluded fragment, or a licence or usage other than the
     * cascade gives. Reads the editors' values of each type and language in one query per 200
     * documents.
     */
    async violations(candidates: readonly PolicyCandidate[]): Promise<Map<string, string>> {
      const refused = new Map<string, string>();
      if (candidates.length === 0) return refused;
      const settings = getService(strapi, 'config');
      const types = new Map(settings.enabledTypes().map((t) => [t.uid, t]));
      const { defaultLocale } = await sources.locales(settings.config().defaultLocale ?? 'en');
      const site = settings.site(defaultLocale);
      // Candidates per type and language; the editors' values of their documents in one query each.
      const groups = new Map<string, PolicyCandidate[]>();
      for (const candidate of candidates) {
        const key = `${candidate.sourceUid}|${candidate.lang}`;
        const group = groups.get(key);
        if (group) group.push(candidate);
        else groups.set(key, [candidate]);
      }
      for (const group of groups.values()) {
        const { sourceUid: uid, lang } = group[0]!;
        const type = types.get(uid);
        const published = type
          ? await sources.publishedMetadata(
              uid,
              group.map((c) => c.sourceDocument),
              sources.isLocalized(uid) ? lang : undefined,
            )
          : new Map<string, undefined>();
        for (const candidate of group) {
          const meta = published.get(candidate.sourceDocument);
          if (!type) {
            refused.set(candidate.itemId, `content type ${uid} is not enabled`);
            continue;
          }
          if (!meta) {
            refused.set(candidate.itemId, 'its entry is not published');
            continue;
          }
          if (meta.sensitive === true) {
            refused.set(candidate.itemId, 'its entry is marked sensitive');
            continue;
          }
          const pageId = candidate.parent ?? candidate.itemId;
          const key =
            candidate.itemId === pageId ? pageId : candidate.itemId.slice(pageId.length + 1);
          const override = overrideOf(meta.fragments, candidate.itemId, key);
          const expected = cascadePolicy(site.defaults, type.policy, meta, override);
          if (override?.exclude === true) refused.set(candidate.itemId, 'it is excluded');
          else if (candidate.data.license !== expected.license)
            refused.set(
              candidate.itemId,
              `licence ${candidate.data.license} published, the settings and entry give ${expected.license}`,
            );
          else if (!stableEqual(candidate.data.usage, expected.usage))
            refused.set(
              candidate.itemId,
              `usage ${stableStringify(candidate.data.usage)} published, the settings and entry give ${stableStringify(expected.usage)}`,
            );
        }
      }
      return refused;
    },
  };
};

export type PolicyService = ReturnType<typeof createPolicyService>;
