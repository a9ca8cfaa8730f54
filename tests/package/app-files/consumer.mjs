// An ESM consumer of the public subpaths, resolved through the installed package's exports map.
import { headingAnchors, slugify } from 'strapi-plugin-sitemap-ai/anchors';
import { signPayload, verifySignature } from 'strapi-plugin-sitemap-ai/webhooks';

const SECRET = 'a-secret-of-16-chars';
const header = signPayload(SECRET, '{"event":"ping"}', 1_700_000_000);
process.stdout.write(
  JSON.stringify({
    anchor: slugify('Why it has a licence'),
    anchors: headingAnchors(['Intro', 'Data', 'Data']),
    verified: verifySignature(header, SECRET, '{"event":"ping"}', 1_700_000_000),
    tampered: verifySignature(header, SECRET, '{"event":"pong"}', 1_700_000_000),
  }),
);
