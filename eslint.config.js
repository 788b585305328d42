// ESLint: typescript-eslint's recommended-type-checked rules over every TypeScript file we write.
// Formatting is Prettier's job (`npm run format`), so no stylistic rule is turned on here.
import js from '@eslint/js';
import { readdirSync } from 'node:fs';
import tseslint from 'typescript-eslint';

/** The areas: src/'s folders other than the platform, the command line and configuration. */
const areas = readdirSync(new URL('./src/', import.meta.url), { withFileTypes: true })
  .filter((entry) => entry.isDirectory() && !['platform', 'cli', 'config'].includes(entry.name))
  .map((entry) => entry.name);

export default tseslint.config(
  {
    ignores: [
      '.test-bundles/',
      'generated/',
      'dist/',
      'clients/typescript/dist/',
      'clients/.fresh-*/',
      'node_modules/',
    ],
  },
  js.configs.recommended,
  tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      // Fastify plugins, hooks and our handler map are async by contract; some have nothing to await.
      '@typescript-eslint/require-await': 'off',
      '@typescript-eslint/no-floating-promises': [
        'error',
        // node:test awaits its own describe/it; the promise they return is for the runner, not us.
        {
          allowForKnownSafeCalls: [
            { from: 'package', package: 'node:test', name: ['describe', 'it', 'test', 'suite'] },
          ],
        },
      ],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  // The layers of docs/architecture.md ("Layers, and what may import what"), held: an import that
  // points up the layers is an error. (Within a layer, the order is the document's to keep.)
  {
    files: ['src/platform/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: `^(\\.\\./)+(${areas.join('|')}|cli)/`,
              message:
                'A mechanism never imports an area: the area imports it (docs/architecture.md, layers).',
            },
            {
              regex: '^(\\.\\./)+(app|areas|jobs|routes|server)\\.js$',
              message:
                'A mechanism never imports the composition or the process (docs/architecture.md, layers).',
            },
          ],
        },
      ],
    },
  },
  {
    files: [`src/{${areas.join(',')}}/**`],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^(\\.\\./)+(app|areas|jobs|routes|server)\\.js$|^(\\.\\./)+cli/',
              message: 'An area never imports the composition or the process (docs/architecture.md, layers).',
            },
            {
              regex:
                '^\\.\\./[a-z-]+/(handlers|pages|views)\\.tsx?$|^\\.\\./[a-z-]+/(handlers|pages|views)\\.js$',
              message: "An area never imports another area's handlers or pages: share a service function.",
            },
          ],
        },
      ],
    },
  },
  {
    files: ['src/config.ts', 'src/config/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: `^(\\.\\./|\\./)+(platform|${areas.join('|')}|cli)/|^(\\.\\./|\\./)+(app|areas|jobs|routes|server)\\.js$`,
              message: 'Configuration sits below the platform and the areas (docs/architecture.md).',
            },
          ],
        },
      ],
    },
  },
  {
    // Kysely's migration convention: a migration is frozen and typed against no schema (Kysely<any>).
    files: ['migrations/**'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    // Tests read responses as parsed JSON (inject's json() is `any`); their assertions check the shape.
    files: ['test/**'],
    rules: {
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
  {
    // Build scripts are plain ESM JavaScript outside the TypeScript project.
    files: ['**/*.mjs', '**/*.js'],
    extends: [tseslint.configs.disableTypeChecked],
    languageOptions: {
      globals: { process: 'readonly', console: 'readonly', URL: 'readonly', AbortController: 'readonly' },
    },
  },
);
