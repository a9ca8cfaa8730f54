#!/usr/bin/env node
'use strict';

/**
 * sitemap-ai-validate — the manifest validator of the pre-deployment checklist
 * (README › Observability), for CI/CD:
 *
 *   sitemap-ai-validate https://cms.example.com [--all] [--sample N] [--json] [--strict]
 *
 * A thin launcher of the built validator (dist/cli/validate.js, built from
 * server/src/cli/validate.ts with the server's own readiness checks). Exit status: 0 every
 * check passed, 1 a check failed or the site could not be read, 2 bad usage.
 */

const path = require('node:path');

const PKG = (() => {
  try {
    return require(path.join(__dirname, '..', 'package.json'));
  } catch {
    return { version: '0.0.0' };
  }
})();

function loadValidator() {
  try {
    return require(path.join(__dirname, '..', 'dist', 'cli', 'validate.js'));
  } catch (error) {
    if (error && error.code === 'MODULE_NOT_FOUND')
      throw new Error('dist/cli is missing: build the package first (npm run build)');
    throw error;
  }
}

if (require.main === module) {
  Promise.resolve()
    .then(() => loadValidator().main(process.argv.slice(2), { version: PKG.version }))
    .then(
      (code) => {
        process.exitCode = code;
      },
      (error) => {
        process.stderr.write(
          `sitemap-ai-validate: ${error && error.stack ? error.stack : error}\n`,
        );
        process.exitCode = 1;
      },
    );
}
