#!/usr/bin/env node
'use strict';

/**
 * The whole test suite, in the order CI runs it: build (strapi-plugin) → verify → typecheck →
 * lint → format → unit → integration (SQLite, PostgreSQL, MariaDB) → package (the packed
 * tarball installed into a fresh Strapi app) → admin build → e2e (Chromium).
 * SITEMAP_AI_TEST_DBS narrows the databases; SITEMAP_AI_SKIP_PACKAGE=1 skips the package stage
 * (for a quick local loop only — CI always runs it).
 */
const { spawnSync } = require('node:child_process');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');
const bin = (pkg, file) => path.join(ROOT, 'node_modules', pkg, file);
const vitest = (project) => [bin('vitest', 'vitest.mjs'), 'run', '--project', project];

const steps = [
  ['build', [path.join(ROOT, 'scripts', 'build-plugin.js'), '--silent']],
  ['verify', [bin('@strapi/sdk-plugin', 'bin/strapi-plugin.js'), 'verify']],
  ['typecheck', [bin('typescript', 'bin/tsc'), '-b']],
  ['lint', [bin('eslint', 'bin/eslint.js'), '.', '--max-warnings', '0']],
  ['format', [bin('prettier', 'bin/prettier.cjs'), '--check', '--log-level', 'warn', '.']],
  ['unit', vitest('unit')],
  ['integration', vitest('integration')],
  [
    'package',
    vitest('package'),
    null,
    process.env.SITEMAP_AI_SKIP_PACKAGE === '1' && !process.env.CI,
  ],
  // The plugin's admin must build inside a real Strapi admin (Vite); the browser tests use that build.
  ['admin build', [bin('@strapi/strapi', 'bin/strapi.js'), 'build'], 'playground'],
  ['e2e', vitest('e2e')],
];

const started = Date.now();
for (const [name, args, dir, skip] of steps) {
  if (skip) {
    console.log(`\n=== ${name}: skipped (SITEMAP_AI_SKIP_PACKAGE=1) ===`);
    continue;
  }
  const t = Date.now();
  console.log(`\n=== ${name} ===`);
  const cwd = dir ? path.join(ROOT, dir) : ROOT;
  const result = spawnSync(process.execPath, args, { cwd, stdio: 'inherit', env: process.env });
  const seconds = ((Date.now() - t) / 1000).toFixed(1);
  console.log(`=== ${name}: ${result.status === 0 ? 'ok' : 'FAILED'} in ${seconds} s ===`);
  if (result.status !== 0) process.exit(result.status || 1);
}
console.log(`\nAll test steps passed in ${((Date.now() - started) / 1000).toFixed(1)} s.`);
