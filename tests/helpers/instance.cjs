'use strict';

/**
 * A second Strapi instance for the multi-instance test: boots the playground
 * on the database named by the environment, prints "ready", publishes an edit
 * of each article slug in SLUGS when it reads "go" on stdin, prints
 * "published" ("go TAG": the edit names TAG, then it prints "published TAG"); "edit DOCUMENT TAG"
 * appends a line naming TAG to that article's English draft, publishes it and prints
 * "edited DOCUMENT TAG" (the bench's publishes under load); on "stop" it prints its scheduler's
 * tick count and shuts down. With LISTEN=1
 * it also serves HTTP on a free port of 127.0.0.1 and prints "listening <port>" before "ready".
 */
const path = require('node:path');
const readline = require('node:readline');

const PLAYGROUND = path.resolve(__dirname, '..', '..', 'playground');

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
  const slugs = (process.env.SLUGS || '').split(',').filter(Boolean);
  if (process.env.LISTEN === '1') {
    strapi.server.mount();
    await new Promise((resolve) => strapi.server.httpServer.listen(0, '127.0.0.1', resolve));
    console.log(`listening ${strapi.server.httpServer.address().port}`);
  }
  console.log('ready');
  readline.createInterface({ input: process.stdin }).on('line', async (line) => {
    if (line.trim() === 'stop') {
      console.log(`ticks ${strapi.plugin('sitemap-ai').service('scheduler').ticks()}`);
      await strapi.destroy();
      process.exit(0);
    }
    const [command, tag, editTag] = line.trim().split(/\s+/);
    if (command === 'edit') {
      const documentId = tag;
      const doc = await documents.findOne({ documentId, locale: 'en', status: 'draft' });
      await documents.update({
        documentId,
        locale: 'en',
        data: { body: `${doc.body}\n\nEdited under load (${editTag}).` },
      });
      await documents.publish({ documentId, locale: 'en' });
      console.log(`edited ${documentId} ${editTag}`);
      return;
    }
    if (command !== 'go') return;
    const edit = tag ? `Edited by instance B (${tag}).` : 'Edited by instance B.';
    await Promise.all(
      slugs.map(async (slug) => {
        const doc = await documents.findFirst({ filters: { slug }, locale: 'en', status: 'draft' });
        await documents.update({
          documentId: doc.documentId,
          locale: 'en',
          data: { body: `${doc.body}\n\n${edit}` },
        });
        await documents.publish({ documentId: doc.documentId, locale: 'en' });
      }),
    );
    console.log(tag ? `published ${tag}` : 'published');
  });
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
