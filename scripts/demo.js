#!/usr/bin/env node
'use strict';

/**
 * The main job: build the plugin (and the playground's admin panel when it is
 * missing), boot the playground Strapi on SQLite, seed it on first boot, and
 * serve the AI manifest. Honours PORT (1337) and DATABASE_FILENAME
 * (playground/.tmp/data.db). DEMO_ADMIN=false skips the admin build.
 */
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const { buildPlugin } = require('./build-plugin');

const ROOT = path.resolve(__dirname, '..');
const PLAYGROUND = path.join(ROOT, 'playground');
const ADMIN_EMAIL = process.env.DEMO_ADMIN_EMAIL || 'admin@example.com';
const ADMIN_PASSWORD = process.env.DEMO_ADMIN_PASSWORD || 'Demo-Admin-2026';

function run(command, args, cwd) {
  const result = spawnSync(command, args, { cwd, stdio: 'inherit', env: process.env });
  if (result.status !== 0) {
    console.error(`\n${command} ${args.join(' ')} failed (exit ${result.status}).`);
    process.exit(result.status || 1);
  }
}

async function ensureAdminUser(strapi) {
  const users = strapi.service('admin::user');
  if ((await users.count()) > 0) return false;
  const superAdmin = await strapi.service('admin::role').getSuperAdmin();
  await users.create({
    firstname: 'Demo',
    lastname: 'Admin',
    email: ADMIN_EMAIL,
    password: ADMIN_PASSWORD,
    isActive: true,
    roles: superAdmin ? [superAdmin.id] : [],
  });
  return true;
}

async function main() {
  console.log('[demo] building the plugin (strapi-plugin build)');
  if (buildPlugin({ silent: true }) !== 0) process.exit(1);

  const withAdmin = process.env.DEMO_ADMIN !== 'false';
  if (withAdmin && !fs.existsSync(path.join(PLAYGROUND, 'build', 'index.html'))) {
    console.log('[demo] building the admin panel (first run only, about a minute)');
    run(
      process.execPath,
      [path.join(ROOT, 'node_modules', '@strapi', 'strapi', 'bin', 'strapi.js'), 'build'],
      PLAYGROUND,
    );
  }

  process.chdir(PLAYGROUND);
  process.env.NODE_ENV = process.env.NODE_ENV || 'development';
  const { createStrapi } = require('@strapi/strapi');
  const strapi = await createStrapi({
    appDir: PLAYGROUND,
    distDir: PLAYGROUND,
    serveAdminPanel: withAdmin,
    autoReload: false,
  }).load();
  const created = await ensureAdminUser(strapi);
  await strapi.start();

  const port = strapi.config.get('server.port');
  const base = `http://localhost:${port}`;
  const snapshot = await strapi.plugin('sitemap-ai').service('manifest').current();
  console.log(`
  sitemap-ai demo is running (snapshot ${snapshot.seq}, ${snapshot.itemCount} items)

    Manifest (JSON)   ${base}/api/sitemap-ai/manifest
    Manifest (XML)    ${base}/api/sitemap-ai/manifest.xml
    JSON Schema       ${base}/api/sitemap-ai/schema.json
    One fragment      ${base}/api/sitemap-ai/fragments/article:geo-index:en:why-classic-sitemaps-fail
    Its content       ${base}/api/sitemap-ai/fragments/article:geo-index:en:why-classic-sitemaps-fail/content
${withAdmin ? `    Admin panel       ${base}/admin  (${ADMIN_EMAIL} / ${created ? ADMIN_PASSWORD : 'the password you set'})\n` : ''}
  Database: ${strapi.config.get('database.connection.connection.filename') || strapi.config.get('database.connection.client')}
  Stop with Ctrl+C.
`);

  const stop = async () => {
    await strapi.destroy();
    process.exit(0);
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
