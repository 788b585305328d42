// Builds the package: the API types are generated/openapi.d.ts itself (copied in, never edited),
// then tsc compiles src/ to dist/ with declarations. Run from the repository: npm run build:client.
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const here = fileURLToPath(new URL('.', import.meta.url));
rmSync(`${here}dist`, { recursive: true, force: true });
mkdirSync(`${here}src/generated`, { recursive: true });
copyFileSync(`${here}../../generated/openapi.d.ts`, `${here}src/generated/openapi.ts`);
execFileSync(
  process.execPath,
  [fileURLToPath(import.meta.resolve('typescript/bin/tsc')), '-p', `${here}tsconfig.json`],
  { stdio: 'inherit' },
);
