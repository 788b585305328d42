// Files the running code reads beside itself: from the repository when run from source (tsx),
// from dist/ when compiled, whether as separate modules or as the one bundle `npm run build`
// makes (whose own location says nothing about where the others are).
import { existsSync } from 'node:fs';

/** True when running compiled JavaScript from dist/, false when running the TypeScript sources. */
export const compiled = import.meta.url.endsWith('.js');

/** The package's root: the nearest folder above this module holding package.json. */
const root = (() => {
  let folder = new URL('./', import.meta.url);
  while (!existsSync(new URL('package.json', folder))) {
    const parent = new URL('../', folder);
    if (parent.href === folder.href) throw new Error(`No package.json above ${import.meta.url}`);
    folder = parent;
  }
  return folder;
})();

/** `source` when running from source, `built` (under dist/) when compiled. */
export function packageFile(source: string, built: string): URL {
  return new URL(compiled ? `dist/${built}` : source, root);
}

/** A file of the development cache (node_modules/.cache/bot-platform/), for work worth keeping between runs. */
export function cacheFile(name: string): URL {
  return new URL(`node_modules/.cache/bot-platform/${name}`, root);
}
