#!/usr/bin/env node
'use strict';

/**
 * The whole test suite, in the order CI runs it: typecheck → unit →
 * integration (SQLite, PostgreSQL, MariaDB) → admin build → e2e (Chromium).
 * SITEMAP_AI_TEST_DBS narrows the databases.
 */
const { spawnSync } = require('node:child_process');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');
const bin = (pkg, file) => path.join(ROOT, 'node_modules', pkg, file);

const steps = [
  ['build', [bin('typescript', 'bin/tsc'), '-p', 'tsconfig.build.json']],
  ['typecheck', [bin('typescript', 'bin/tsc'), '-p', 'tsconfig.plugin.json', '--noEmit']],
  ['typecheck admin', [bin('typescript', 'bin/tsc'), '-p', 'admin/tsconfig.json']],
  ['unit', [bin('vitest', 'vitest.mjs'), 'run', '--project', 'unit']],
  ['integration', [bin('vitest', 'vitest.mjs'), 'run', '--project', 'integration']],
  // The plugin's admin must build inside a real Strapi admin (Vite); the browser tests use that build.
  ['admin build', [bin('@strapi/strapi', 'bin/strapi.js'), 'build'], 'playground'],
  ['e2e', [bin('vitest', 'vitest.mjs'), 'run', '--project', 'e2e']],
];

const started = Date.now();
for (const [name, args, dir] of steps) {
  const t = Date.now();
  console.log(`\n=== ${name} ===`);
  const cwd = dir ? path.join(ROOT, dir) : ROOT;
  const result = spawnSync(process.execPath, args, { cwd, stdio: 'inherit', env: process.env });
  console.log(`=== ${name}: ${result.status === 0 ? 'ok' : 'FAILED'} in ${((Date.now() - t) / 1000).toFixed(1)} s ===`);
  if (result.status !== 0) process.exit(result.status || 1);
}
console.log(`\nAll test steps passed in ${((Date.now() - started) / 1000).toFixed(1)} s.`);
