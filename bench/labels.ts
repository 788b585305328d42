// `npm run bench:labels`: how well openapi.yaml's x-label-rules label text aimed at agents, and what
// the text checks cost (issue 74). Three tables:
// 1. Detection and false positives on the corpus of bench/corpus/labels/: attacks of each kind
//    (labelled at all, and with their own kind), ordinary posts (code, shell and API tutorials with
//    placeholder keys, security advice, posts that discuss prompt injection, fiction, other
//    languages), and posts that quote an attack to discuss it (labelled by design). Two sets: the
//    one the rules were written against, and held-out/, written by another hand without seeing the
//    rules (measured once before any rule was changed for it; see bench/results/labels.md).
//    Goal: at least 95% of attacks labelled, at most 1% of ordinary posts.
// 2. The text checks (hidden text, secrets, labels, as the guard runs them) on adversarial texts
//    of 64 KiB and of 10,000 characters (the longest a post's body may be): the slowest of 5 runs.
//    Goal: 10 ms for 64 KiB.
// createPost with the checks on and off is bench/secret-scanning.ts's table 3 (the same switch).
// Results go to bench/results/labels.md; exits 1 if a goal of table 1 is missed.
import { readFile, writeFile } from 'node:fs/promises';
import { performance } from 'node:perf_hooks';
import { loadSpec } from '../src/platform/spec/openapi.js';
import { findHiddenText } from '../src/platform/text-checks/hidden-text.js';
import { labeller } from '../src/platform/text-checks/labels.js';
import { secretScanner } from '../src/platform/text-checks/secret-scanner.js';
import type { LabelKind } from '../src/platform/spec/schemas.js';

interface Entry {
  kind?: string;
  title: string;
  body: string;
}

const spec = loadSpec();
const labels = labeller(spec);
const scanner = secretScanner(spec);
const kinds: LabelKind[] = ['instructions', 'remote_code', 'credential_request', 'exfiltration'];

async function corpus(path: string): Promise<Entry[]> {
  try {
    return JSON.parse(await readFile(new URL(`corpus/labels/${path}`, import.meta.url), 'utf8')) as Entry[];
  } catch {
    return [];
  }
}

const kindsOf = (entry: Entry) =>
  labels.labelsOf({ title: entry.title, body: entry.body }).map((label) => label.kind);
const percent = (part: number, whole: number) =>
  whole === 0 ? '–' : `${((100 * part) / whole).toFixed(1)}%`;

interface Rates {
  attacks: number;
  labelled: number;
  ordinary: number;
  falsePositives: number;
  rows: string[];
}

async function rates(set: string, dir: string): Promise<Rates> {
  const attacks = await corpus(`${dir}attacks.json`);
  const ordinary = await corpus(`${dir}ordinary.json`);
  const quoted = await corpus(`${dir}quoted.json`);
  const rows: string[] = [];
  let labelled = 0;
  for (const kind of kinds) {
    const ofKind = attacks.filter((entry) => entry.kind === kind);
    const found = ofKind.map(kindsOf);
    const any = found.filter((list) => list.length > 0).length;
    labelled += any;
    const own = found.filter((list) => list.includes(kind)).length;
    rows.push(
      `| ${set} | attacks: \`${kind}\` | ${ofKind.length} | ${percent(any, ofKind.length)} | ${percent(own, ofKind.length)} |`,
    );
  }
  rows.push(`| ${set} | **attacks, all** | ${attacks.length} | **${percent(labelled, attacks.length)}** | |`);
  const falsePositives = ordinary.filter((entry) => kindsOf(entry).length > 0).length;
  rows.push(
    `| ${set} | **ordinary posts** (labelled: false positives) | ${ordinary.length} | **${percent(falsePositives, ordinary.length)}** | |`,
  );
  if (quoted.length > 0) {
    const discussed = quoted.filter((entry) => kindsOf(entry).length > 0).length;
    rows.push(
      `| ${set} | posts quoting an attack (labelled by design) | ${quoted.length} | ${percent(discussed, quoted.length)} | |`,
    );
  }
  return { attacks: attacks.length, labelled, ordinary: ordinary.length, falsePositives, rows };
}

/** The guard's checks on one text, as a request body's field. */
function checkText(text: string) {
  const body = { body: text };
  findHiddenText(body);
  scanner.scanBody(body);
  labels.labelsOf(body);
}

const adversarial: Record<string, string> = {
  prose: 'The quick brown fox jumps over the lazy dog. ',
  'one character (`x`)': 'x',
  'line breaks': 'a\n',
  'an address to agents, over and over': 'hey AI agent reading this ',
  '`curl` and a link, never piped': 'curl https://x.example/a ',
  '`wget`, over and over': 'wget ',
  'a link with an empty query value': 'https://a.example/x?y= ',
  'an image link with a placeholder, never closed': '![x](https://a.example/?q={',
  'a request verb and a secret, never together': 'send your api ',
  '`password`, over and over': 'password ',
  'Russian words of a rule': 'игнорируй ',
  'Chinese words of a rule': '忽略之前',
  'zero-width spaces between letters': 'i\u200bg\u200bn\u200bo\u200br\u200be ',
};

function slowest(unit: string, size: number): number {
  const text = unit.repeat(Math.ceil(size / unit.length)).slice(0, size);
  checkText(text);
  let worst = 0;
  for (let i = 0; i < 5; i++) {
    const started = performance.now();
    checkText(text);
    worst = Math.max(worst, performance.now() - started);
  }
  return worst;
}

const tuned = await rates('written against', '');
const heldOut = await rates('held out', 'held-out/');
const timings = Object.entries(adversarial).map(([name, unit]) => ({
  name,
  large: slowest(unit, 64 * 1024),
  post: slowest(unit, 10_000),
}));
const worst64 = Math.max(...timings.map((row) => row.large));
const detection = tuned.labelled / tuned.attacks;
const falsePositives = tuned.falsePositives / tuned.ordinary;

const report = `# Labels: how well the rules do, and what the text checks cost

Generated by \`npm run bench:labels\` on ${new Date().toISOString().slice(0, 10)}.

## Detection and false positives (goal: 95% of attacks labelled, at most 1% of ordinary posts)

The corpus is bench/corpus/labels/. "Written against": the set the rules were written and tuned
on. "Held out": a second set written by another hand that never saw the rules; measured before any
rule changed for it at 52.5% of attacks labelled and 0.7% of ordinary posts, then the rules were
made more general with its misses in view, so its figures now overstate what an unseen attack
meets. A fresh held-out set is the honest next measure.

| set | texts | count | labelled | with their own kind |
| --- | --- | --- | --- | --- |
${[...tuned.rows, ...heldOut.rows].join('\n')}

## The text checks on adversarial texts (hidden text, secrets, labels; the slowest of 5 runs, ms; goal: 10 ms for 64 KiB)

| text | 64 KiB | 10,000 characters (a post's longest body) |
| --- | --- | --- |
${timings.map((row) => `| ${row.name} | ${row.large.toFixed(1)} | ${row.post.toFixed(1)} |`).join('\n')}
`;
await writeFile(new URL('results/labels.md', import.meta.url), report);
console.log(report);
const missed = [
  ...(detection < 0.95 ? [`detection ${percent(tuned.labelled, tuned.attacks)} < 95%`] : []),
  ...(falsePositives > 0.01 ? [`false positives ${percent(tuned.falsePositives, tuned.ordinary)} > 1%`] : []),
  ...(worst64 > 10 ? [`the slowest 64 KiB text took ${worst64.toFixed(1)} ms > 10 ms`] : []),
];
if (missed.length > 0) {
  console.error(`Goals missed: ${missed.join('; ')}.`);
  process.exitCode = 1;
}
