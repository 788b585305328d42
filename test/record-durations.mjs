// `npm run test:durations`: keeps what the last whole passing `npm test` of each pass measured (in
// .test-bundles/) as test/durations.json, which plans the order the next runs start their files in
// (test/helpers/run-order.mjs). Run it after `npm test` (and after the Postgres pass, with
// DATABASE_URL set) when files were added, moved or became slower; commit the file it writes.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { durationsFile, measuredDurationsFile } from './helpers/run-order.mjs';

const kept = JSON.parse(readFileSync(durationsFile, 'utf8'));
const recorded = [];
for (const pass of ['pglite', 'postgres']) {
  const measured = measuredDurationsFile(pass);
  if (!existsSync(measured)) continue;
  const durations = JSON.parse(readFileSync(measured, 'utf8'));
  kept[pass] = Object.fromEntries(
    Object.entries(durations)
      .map(([file, ms]) => [file, Math.round(ms / 100) * 100])
      .sort(([a], [b]) => a.localeCompare(b)),
  );
  recorded.push(`${pass} (${Object.keys(durations).length} files)`);
}
if (recorded.length === 0) {
  console.error('npm run test:durations: no whole passing npm test measured yet; run npm test first.');
  process.exit(1);
}
writeFileSync(durationsFile, `${JSON.stringify(kept, null, 2)}\n`);
console.log(`test/durations.json now holds the durations of ${recorded.join(' and ')}: commit it.`);
