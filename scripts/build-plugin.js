'use strict';

/**
 * Builds the package the way it is published: `strapi-plugin build` (server, admin and the
 * public subpaths into dist/, CJS + ESM + declarations), then keeps in each public subpath
 * folder only the declaration of its own entry (the bundler emits one for every sibling
 * module, whose imports point outside dist/), and bundles the command-line validator
 * (server/src/cli/validate.ts → dist/cli/validate.js, run by bin/sitemap-ai-validate.js; not a
 * public subpath) and what the plugin's thread drafts with (server/src/workers/drafting.ts →
 * dist/server/drafting.js, loaded from next to the server's bundle). Their dependencies
 * stay the package's own.
 */
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');

/** Public subpaths built from a single core module: each keeps `<entry>.d.ts` only. */
function pruneSubpathTypes() {
  const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
  for (const [key, entry] of Object.entries(pkg.exports)) {
    if (typeof entry === 'string' || key === './strapi-server' || key === './strapi-admin')
      continue;
    const dir = path.join(ROOT, path.dirname(entry.types));
    const keep = path.basename(entry.types);
    for (const file of fs.readdirSync(dir)) {
      if (file.endsWith('.d.ts') && file !== keep) fs.rmSync(path.join(dir, file));
    }
  }
}

function buildPlugin({ silent = false } = {}) {
  const cli = path.join(ROOT, 'node_modules', '@strapi', 'sdk-plugin', 'bin', 'strapi-plugin.js');
  const args = [cli, 'build', ...(silent ? ['--silent'] : [])];
  const result = spawnSync(process.execPath, args, {
    cwd: ROOT,
    stdio: 'inherit',
    env: process.env,
  });
  if (result.status !== 0) return result.status || 1;
  pruneSubpathTypes();
  buildPrograms({ silent });
  return 0;
}

/** Programs bundled on their own, each with the core it runs: source → output under dist/. */
const PROGRAMS = [
  ['server/src/cli/validate.ts', 'dist/cli/validate.js'],
  // What the plugin's thread drafts with, next to the server's bundle, which loads it from there.
  ['server/src/workers/drafting.ts', 'dist/server/drafting.js'],
];

function buildPrograms({ silent }) {
  for (const [source, output] of PROGRAMS)
    require('esbuild').buildSync({
      entryPoints: [path.join(ROOT, source)],
      outfile: path.join(ROOT, output),
      bundle: true,
      platform: 'node',
      target: 'node20',
      format: 'cjs',
      packages: 'external',
      logLevel: silent ? 'error' : 'warning',
    });
}

module.exports = { buildPlugin, ROOT };

if (require.main === module)
  process.exit(buildPlugin({ silent: process.argv.includes('--silent') }));
