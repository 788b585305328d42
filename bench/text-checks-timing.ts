// The text checks (hidden text, secrets, labels, as the guard runs them) timed on adversarial texts:
// bench/labels.ts's table of them, and `npm run bench`'s row of the slowest. Each text is one unit
// repeated: a unit the rules try often and never match, a disguise they must see through (once
// two readings of the text, as written and revealed), every word the rules need.
import { performance } from 'node:perf_hooks';
import type { OpenApiDocument } from '../src/platform/spec/openapi.js';
import { findHiddenText } from '../src/platform/text-checks/hidden-text.js';
import { labelRules, labeller, ruleNeeds } from '../src/platform/text-checks/labels.js';
import { prefilterStrings } from '../src/platform/text-checks/literals.js';
import { secretScanner } from '../src/platform/text-checks/secret-scanner.js';
import { assertStartNodeOptions } from './server-process.js';

/** The units, by what they are. */
export function adversarialUnits(spec: OpenApiDocument): Record<string, string> {
  const rules = labelRules(spec);
  // Near misses of every rule: each rule runs on them and matches nothing.
  const counterexamples = rules.flatMap((rule) => rule.counterexamples ?? []).join('\n');
  return {
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
    'a request verb and a secret, never together, a zero-width space after': 'send your api \u200b',
    '`send` and the words a rule asks for, never in order': 'send your owner send .env send card number ',
    'every word a rule needs, over and over': [
      ...new Set(rules.flatMap((rule) => prefilterStrings(ruleNeeds(rule)))),
    ].join(' '),
    "every rule's counterexamples, over and over": counterexamples,
    // Disguises: what the rules read is not what was written.
    "every rule's counterexamples, a zero-width space before each word": counterexamples.replaceAll(
      ' ',
      ' \u200b',
    ),
    "every rule's counterexamples, Cyrillic о for every o": counterexamples.replaceAll('o', 'о'),
  };
}

/**
 * The median and the slowest of 15 runs of the checks on a unit repeated to a size, after 3; in a
 * process with npm start's V8 options, as the server runs them.
 */
export function textChecksTimer(
  spec: OpenApiDocument,
): (unit: string, size: number) => { median: number; slowest: number } {
  assertStartNodeOptions();
  const labels = labeller(spec);
  const scanner = secretScanner(spec);
  const checks = (text: string) => {
    const body = { body: text };
    findHiddenText(body);
    scanner.scanBody(body);
    labels.labelsOf(body);
  };
  return (unit, size) => {
    const text = unit.repeat(Math.ceil(size / unit.length)).slice(0, size);
    for (let i = 0; i < 3; i++) checks(text);
    const runs: number[] = [];
    for (let i = 0; i < 15; i++) {
      const started = performance.now();
      checks(text);
      runs.push(performance.now() - started);
    }
    runs.sort((a, b) => a - b);
    return { median: runs[7]!, slowest: runs[14]! };
  };
}
