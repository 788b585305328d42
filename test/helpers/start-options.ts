// The V8 options of package.json's start script (its young generation's size; regular expressions
// compiled to machine code at once), for every process that runs what `npm start` runs without npm.
import { readFileSync } from 'node:fs';

const start = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    scripts: { start: string };
  }
).scripts.start;

/** `--max-semi-space-size=8 ...`: the options between `node` and the script, as start gives them. */
export const startNodeOptions: string[] = start.match(/--[\w-]+(?:=\S+)?/g) ?? [];
