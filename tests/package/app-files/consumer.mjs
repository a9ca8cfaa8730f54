// An ESM consumer of the public subpaths, resolved through the installed package's exports map.
import { headingAnchors, slugify } from 'strapi-plugin-sitemap-ai/anchors';
import { signPayload, verifySignature } from 'strapi-plugin-sitemap-ai/webhooks';
import { contentUsage, robotsGroups } from 'strapi-plugin-sitemap-ai/interop';
import { checksumOf, fileNameForId, verifyWebhook } from 'strapi-plugin-sitemap-ai/client';

const SECRET = 'a-secret-of-16-chars';
const DENY_TRAIN = { train: 'deny', infer: 'allow', cache: 'allow', redistribute: 'deny' };
const header = signPayload(SECRET, '{"event":"ping"}', 1_700_000_000);
process.stdout.write(
  JSON.stringify({
    anchor: slugify('Why it has a licence'),
    anchors: headingAnchors(['Intro', 'Data', 'Data']),
    verified: verifySignature(header, SECRET, '{"event":"ping"}', 1_700_000_000),
    tampered: verifySignature(header, SECRET, '{"event":"pong"}', 1_700_000_000),
    contentUsage: contentUsage(DENY_TRAIN),
    clientChecksum: checksumOf('abc'),
    clientFile: fileNameForId('article:a:en'),
    clientWebhook: verifyWebhook(header, SECRET, '{"event":"ping"}', 1_700_000_000),
    gptbotDisallowed: robotsGroups({
      spec: 'sitemap-ai/1',
      site: { url: 'https://example.com', name: 'example.com' },
      snapshot: null,
      vocabularies: {},
      urls: {},
      rules: [
        { pattern: '/blog/', usage: DENY_TRAIN, license: 'https://example.com/l', lastmod: '' },
      ],
    }).find((group) => group.userAgent.includes('GPTBot')).disallow,
  }),
);
