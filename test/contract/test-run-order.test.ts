// npm test's run order is planned from measured durations (test/durations.json), not a hand-kept
// list: the longest files start first, alone; the rest share processes, the longer first; and the
// durations name no file that is gone (a moved file is measured again: `npm test`, then
// `npm run test:durations`). A new file counts as short until it is measured.
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { describe, test } from 'node:test';
import { aloneFromMs, filesPerProcess, planRuns, recordedDurations } from '../helpers/run-order.mjs';

const testFiles = (readdirSync('test', { recursive: true }) as string[])
  .filter((file) => file.endsWith('.test.ts'))
  .map((file) => `test/${file}`)
  .sort();

describe('the run order', () => {
  test('the longest files start first, each alone; the others share processes, the longer first', () => {
    const durations = { 'test/a.test.ts': 30_000, 'test/b.test.ts': 12_000, 'test/c.test.ts': 9_000 };
    const shorter = Array.from({ length: filesPerProcess + 2 }, (_, i) => `test/short-${i}.test.ts`);
    const runs = planRuns(
      ['test/c.test.ts', ...shorter, 'test/b.test.ts', 'test/a.test.ts', 'test/new.test.ts'],
      {
        ...durations,
        ...Object.fromEntries(shorter.map((file, i) => [file, 1_000 + i])),
      },
    );
    assert.deepEqual(runs.slice(0, 2), [['test/a.test.ts'], ['test/b.test.ts']]);
    assert.equal(
      runs[2]![0],
      'test/c.test.ts',
      'the longest shared file starts with the first shared process',
    );
    assert.equal(runs[2]!.length, filesPerProcess);
    assert.ok(runs.at(-1)!.includes('test/new.test.ts'), 'a file not measured yet counts as short');
    assert.deepEqual(runs.flat().sort(), [...Object.keys(durations), ...shorter, 'test/new.test.ts'].sort());
    assert.ok(aloneFromMs > 1_000);
  });

  for (const pass of ['pglite', 'postgres'] as const) {
    test(`test/durations.json names no test file that is gone, in the ${pass} pass`, () => {
      const measured = Object.keys(recordedDurations(pass));
      assert.ok(measured.length > 100, `${measured.length} files measured`);
      const gone = measured.filter((file) => !testFiles.includes(file));
      assert.deepEqual(gone, [], 'files moved or removed since: run npm test, then npm run test:durations');
    });
  }
});
