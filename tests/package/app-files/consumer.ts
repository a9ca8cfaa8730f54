// A TypeScript consumer of the public subpaths in the app's own code: `strapi build` compiles it
// with the app's tsconfig (node10 resolution, so through typesVersions), the test again with bundler
// resolution (through the exports map's types).
import { headingAnchors, slugify } from 'strapi-plugin-sitemap-ai/anchors';
import { signPayload, verifySignature } from 'strapi-plugin-sitemap-ai/webhooks';
import { policyHeaders, type Usage } from 'strapi-plugin-sitemap-ai/interop';

const SECRET = 'a-secret-of-16-chars';
const anchor: string = slugify('Why it has a licence');
const anchors: string[] = headingAnchors(['A', 'A']);
const header: string = signPayload(SECRET, '{}', 1_700_000_000);
const ok: boolean = verifySignature(header, SECRET, '{}', 1_700_000_000);

const usage: Usage = { train: 'deny', infer: 'allow', cache: 'allow', redistribute: 'deny' };
const headers: Record<string, string> = policyHeaders(
  { usage, license: 'https://example.com/license' },
  { rsl: 'https://example.com/rsl.xml' },
);

export { anchor, anchors, headers, ok };
