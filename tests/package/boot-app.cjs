'use strict';

/**
 * Runs inside the fresh Strapi app, with the app's own node_modules: boots it as `strapi start`
 * does (the compiled app in dist/), creates the first admin, creates and publishes an article
 * through the document service (what the Content Manager does), and serves HTTP on PORT.
 * Prints `READY <port>` once it listens; SIGTERM stops it.
 */
const path = require('node:path');
const { createStrapi } = require('@strapi/strapi');

const ADMIN = { email: process.env.FRESH_ADMIN_EMAIL, password: process.env.FRESH_ADMIN_PASSWORD };

const BODY = `The lead paragraph says what this article is about, with a [source](https://www.w3.org/TR/).

## What a fragment is

A fragment is a section, table, figure or FAQ entry that an agent can cite on its own.

| Measure | Value |
|---|---|
| fragments | 3 |

## Why it has a licence

Each fragment carries the licence and usage rules the site owner chose.`;

async function main() {
  const appDir = process.cwd();
  const strapi = await createStrapi({ appDir, distDir: path.join(appDir, 'dist') }).load();

  const users = strapi.service('admin::user');
  if ((await users.count()) === 0) {
    const superAdmin = await strapi.service('admin::role').getSuperAdmin();
    await users.create({
      firstname: 'Site',
      lastname: 'Owner',
      email: ADMIN.email,
      password: ADMIN.password,
      isActive: true,
      roles: [superAdmin.id],
    });
  }

  const articles = strapi.documents('api::article.article');
  const draft = await articles.create({
    data: { title: 'Fragments for agents', slug: 'fragments-for-agents', body: BODY },
  });
  await articles.publish({ documentId: draft.documentId });

  await strapi.start();
  const address = strapi.server.httpServer.address();
  process.stdout.write(`READY ${address.port}\n`);

  const stop = async () => {
    await strapi.destroy();
    process.exit(0);
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

main().catch((error) => {
  process.stderr.write(`${error.stack ?? error}\n`);
  process.exit(1);
});
