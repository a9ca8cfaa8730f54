// Lint for the whole repository: typescript-eslint's recommended rules for TypeScript,
// react-hooks for the admin, Node globals for scripts and tests; formatting is Prettier's.
import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';
import tseslint from 'typescript-eslint';

/**
 * The house's layers (docs/protocol.md is the public contract; this is the code's): shared is the
 * leaf; core imports only shared; repositories import core types; services compose core and
 * repositories; controllers and middlewares reach data only through services; the command-line
 * validator (server/src/cli) and what the plugin's thread runs (server/src/workers) run the core
 * outside Strapi; the admin and the
 * client kit never import the server (the client bundles the pure webhooks module only).
 */
const layer = (files, patterns, extra = {}) => ({
  files,
  rules: { 'no-restricted-imports': ['error', { patterns }], ...extra },
});
const banned = (group, message) => ({ group, message });
/** What core/ and the CLI stand below: everything that needs a running Strapi. */
const STRAPI_LAYERS = [
  '../repositories/*',
  '../services/*',
  '../controllers/*',
  '../middlewares/*',
  '../routes/*',
  '../utils/*',
];
const layers = [
  layer(
    ['shared/**/*.ts'],
    [
      banned(
        ['**/server/**', '**/admin/**', '**/client/**'],
        'shared/ is the leaf: it imports only shared/ and pure libraries.',
      ),
      banned(['@strapi/*', 'koa'], 'shared/ is browser-safe: no Strapi, no Koa.'),
    ],
  ),
  layer(
    ['server/src/core/**/*.ts'],
    [
      banned(STRAPI_LAYERS, 'core/ is pure: it imports only core/ and shared/.'),
      banned(
        ['@strapi/*', 'koa', 'node:fs', 'node:fs/*', 'node:net', 'node:http'],
        'core/ does no I/O and knows no Strapi.',
      ),
    ],
  ),
  layer(
    ['server/src/cli/**/*.ts'],
    [
      banned(
        STRAPI_LAYERS,
        'the CLI runs the core checks outside Strapi: it imports only core/ and shared/.',
      ),
      banned(['@strapi/*', 'koa'], 'the CLI runs outside Strapi.'),
    ],
  ),
  layer(
    ['server/src/workers/**/*.ts'],
    [
      banned(
        STRAPI_LAYERS,
        "what the plugin's thread runs is bundled with the core alone: it imports only core/ and shared/.",
      ),
      banned(['@strapi/*', 'koa'], "the plugin's thread runs outside Strapi."),
    ],
  ),
  layer(
    ['server/src/repositories/**/*.ts'],
    [
      banned(
        ['../services/*', '../controllers/*', '../middlewares/*', '../routes/*'],
        'repositories/ know core types, nothing above them.',
      ),
    ],
  ),
  layer(
    ['server/src/services/**/*.ts'],
    [
      banned(
        ['../controllers/*', '../middlewares/*', '../routes/*'],
        'services/ do not depend on the HTTP layer.',
      ),
    ],
  ),
  layer(
    [
      'server/src/controllers/**/*.ts',
      'server/src/middlewares/**/*.ts',
      'server/src/routes/**/*.ts',
    ],
    [
      banned(
        ['../repositories', '../repositories/*'],
        'controllers, middlewares and routes reach data through services.',
      ),
    ],
  ),
  layer(
    ['admin/src/**/*.{ts,tsx}'],
    [
      banned(
        ['**/server/**', '**/client/**'],
        'the admin imports shared/ contracts, never the server.',
      ),
    ],
  ),
  layer(
    ['client/src/**/*.ts'],
    [
      banned(
        ['@strapi/*', '**/server/src/!(core)/**', '**/admin/**'],
        'the client kit has no Strapi dependency.',
      ),
    ],
  ),
  // Published on their own (`./anchors`, `./interop`) and bundled by sites' front ends as they are.
  {
    files: ['server/src/core/anchors.ts', 'server/src/core/interop.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: 'ImportDeclaration, ImportExpression, CallExpression[callee.name="require"]',
          message: 'this module is published standalone: it imports nothing.',
        },
      ],
    },
  },
];

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      '.tsbuild/**',
      '.tmp/**',
      'coverage/**',
      'node_modules/**',
      'playground/{build,dist,.strapi,.tmp,types,database,node_modules}/**',
      'tests/e2e/.artifacts/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.{ts,tsx}'],
    rules: {
      '@typescript-eslint/consistent-type-imports': [
        'error',
        // `require(x) as typeof import(x)` is how the tests load CommonJS-only clients.
        { fixStyle: 'inline-type-imports', disallowTypeAnnotations: false },
      ],
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_' },
      ],
    },
  },
  {
    files: ['admin/src/**/*.{ts,tsx}'],
    plugins: { 'react-hooks': reactHooks },
    rules: reactHooks.configs.recommended.rules,
    languageOptions: { globals: globals.browser },
  },
  {
    files: ['**/*.{js,cjs,mjs}'],
    languageOptions: { globals: globals.node, sourceType: 'commonjs' },
    rules: {
      '@typescript-eslint/no-require-imports': 'off',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', caughtErrors: 'none' },
      ],
    },
  },
  { files: ['**/*.mjs'], languageOptions: { sourceType: 'module' } },
  { files: ['tests/**/*.ts', 'scripts/**/*'], languageOptions: { globals: globals.node } },
  ...layers,
  prettier,
);
