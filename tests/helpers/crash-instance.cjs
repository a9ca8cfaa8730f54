'use strict';

/**
 * A Strapi instance for the crash tests, killed with SIGKILL by the test: boots the playground on
 * the database named by the environment and prints "ready"; on "seed N" publishes N generated
 * articles through the document service and prints "seeded"; on "rebuild" prints "building",
 * runs a full rebuild and prints "built <snapshot> skipped=<bool> in <ms> ms"; on "publish-and-die
 * SLUG TEXT" appends TEXT to that article's body, publishes it and kills itself (SIGKILL) the moment
 * the publish returns, before anything it left for later can run.
 */
const path = require('node:path');
const readline = require('node:readline');

const PLAYGROUND = path.resolve(__dirname, '..', '..', 'playground');

function body(n) {
  const parts = [
    `Lead paragraph of generated article ${n}, with a [source](https://www.w3.org/TR/).`,
  ];
  for (let s = 1; s <= 8; s += 1) {
    parts.push(`## Section ${s} of article ${n}\n\n${'Words of the section body. '.repeat(25)}`);
    if (s % 4 === 0) parts.push('| Metric | Value |\n|---|---|\n| a | 1 |\n| b | 2 |');
  }
  return parts.join('\n\n');
}

async function main() {
  process.chdir(PLAYGROUND);
  const { createStrapi } = require('@strapi/strapi');
  const strapi = await createStrapi({
    appDir: PLAYGROUND,
    distDir: PLAYGROUND,
    autoReload: false,
    serveAdminPanel: false,
  }).load();
  const documents = strapi.documents('api::article.article');
  console.log('ready');
  readline.createInterface({ input: process.stdin }).on('line', async (line) => {
    const [command, arg] = line.trim().split(/\s+/);
    if (command === 'seed') {
      for (let n = 1; n <= Number(arg); n += 1) {
        const doc = await documents.create({
          locale: 'en',
          data: { title: `Generated article ${n}`, slug: `generated-${n}`, body: body(n) },
        });
        await documents.publish({ documentId: doc.documentId, locale: 'en' });
      }
      console.log('seeded');
    }
    if (command === 'publish-and-die') {
      const text = line.trim().split(/\s+/).slice(2).join(' ');
      const [draft] = await documents.findMany({
        filters: { slug: arg },
        locale: 'en',
        status: 'draft',
      });
      await documents.update({
        documentId: draft.documentId,
        locale: 'en',
        data: { body: `${draft.body}\n\n${text}` },
      });
      await documents.publish({ documentId: draft.documentId, locale: 'en' });
      process.kill(process.pid, 'SIGKILL');
    }
    if (command === 'rebuild') {
      console.log('building');
      const started = Date.now();
      const result = await strapi
        .plugin('sitemap-ai')
        .service('snapshot-builder')
        .rebuild({ trigger: 'crash-test', full: true });
      const seq = result.snapshot ? result.snapshot.seq : 'none';
      console.log(`built ${seq} skipped=${result.skipped} in ${Date.now() - started} ms`);
    }
  });
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
