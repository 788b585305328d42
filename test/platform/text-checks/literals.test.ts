// The strings a label rule cannot match without, and those its matches begin with
// (src/platform/text-checks/literals.ts), which let the labeller skip a rule on a text holding none
// of them and try it only where they begin: sound on patterns of each shape, and on every rule, over
// its examples and the corpus, the rule tried where its strings begin finds what a scan finds.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { loadSpec } from '../../../src/platform/spec/openapi.js';
import {
  labelRules,
  literalFinder,
  lowerCasePattern,
  ruleMatcher,
  withAtomicGroups,
} from '../../../src/platform/text-checks/labels.js';
import { readFileSync } from 'node:fs';
import { leadingLiterals, requiredLiterals } from '../../../src/platform/text-checks/literals.js';
import { revealed } from '../../../src/platform/text-checks/reveal.js';

describe('requiredLiterals', () => {
  test('a sequence joins its known text, an alternation unites its branches, a repetition needs one copy', () => {
    assert.deepEqual(requiredLiterals('ignore\\s+(?:all|previous)\\s+instructions'), ['instructions']);
    assert.deepEqual(requiredLiterals('(?:ignore|disregard) previous'), [
      'ignore previous',
      'disregard previous',
    ]);
    assert.deepEqual(requiredLiterals('curl[^|]{0,80}\\|\\s*(?:ba)?sh|wget\\b'), ['curl', 'wget']);
    assert.deepEqual(requiredLiterals('(?:abc){2,4}x'), ['abc']);
    assert.deepEqual(requiredLiterals(withAtomicGroups('https?://(?>[^\\s]{1,30})')), ['http']);
  });

  test('what can match without any given string needs nothing: an optional part, a class, a short word', () => {
    for (const pattern of [
      '(?:ignore)?\\s+x',
      '[a-z]{3,9}',
      'you|x\\w+',
      'ab',
      '\\bto\\b',
      '(?=x)y',
      '(?!secret)\\w+',
    ])
      assert.equal(requiredLiterals(pattern), null, pattern);
  });

  test('a positive lookaround’s text is needed where it stands; a backreference needs nothing', () => {
    assert.deepEqual(requiredLiterals('(?=(secret\\w*))\\1'), ['secret']);
    assert.deepEqual(requiredLiterals('(?<=token=)\\w+'), ['token=']);
  });
});

describe('leadingLiterals', () => {
  test('a match begins with one of them: words, branches, optional parts, lookaheads', () => {
    assert.deepEqual(leadingLiterals('\\b(?:send|share)\\s+your'), ['send', 'share']);
    assert.deepEqual(leadingLiterals('https?://x'), ['http://x', 'https://x']);
    assert.deepEqual(leadingLiterals('(?:ba|z)?sh\\b'), ['bash', 'sh', 'zsh']);
    assert.deepEqual(leadingLiterals('(?<!no\\s)(?:post|paste) it'), ['paste it', 'post it']);
    assert.deepEqual(leadingLiterals(withAtomicGroups('(?>https?://\\S{1,9})\\.sh')), [
      'http://',
      'https://',
    ]);
    assert.deepEqual(leadingLiterals('(?=[xy])(?:xylophone|yes)'), ['xylophone', 'yes'], 'the longer leads');
    assert.deepEqual(leadingLiterals('x{0,3}yes'), null, 'a string of one character is no use');
  });

  test('none when a match may begin anywhere', () => {
    for (const pattern of ['\\w+key', '[a-z]{2}_key', '(?:abc)?', '.{1,3}secret', '\\d{4}'])
      assert.equal(leadingLiterals(pattern), null, pattern);
  });
});

describe('literalFinder', () => {
  test('says where each string asked for begins, overlapping ones included', () => {
    const find = literalFinder(['instructions'], ['you', 'your', 'ur']);
    const { held, at } = find('your ur; you, your');
    assert.deepEqual([...held].sort(), ['ur', 'you', 'your']);
    assert.deepEqual(at.get('you'), [0, 9, 14]);
    assert.deepEqual(at.get('your'), [0, 14]);
    assert.deepEqual(at.get('ur'), [2, 5, 16]);
    assert.equal(at.get('instructions'), undefined);
  });

  test('finds every string a text holds, those inside or beginning another’s match included', () => {
    const find = literalFinder([
      'instruction',
      'instructions',
      'key',
      'apikey',
      'invoke-webrequest',
      '<|im_start|>',
    ]);
    assert.deepEqual(
      [...find('an apikey; the instructions; invoke-webrequest <|im_start|>').held].sort(),
      ['apikey', 'instruction', 'instructions', 'invoke-webrequest', 'key', '<|im_start|>'].sort(),
    );
    assert.deepEqual([...find('nothing here').held], []);
  });
});

describe('every rule', () => {
  test('each example it labels, as written or revealed, holds one of the strings it needs', () => {
    const rules = labelRules(loadSpec());
    let gated = 0;
    for (const rule of rules) {
      const needs = requiredLiterals(lowerCasePattern(rule.pattern));
      if (needs === null) continue;
      gated++;
      const matches = ruleMatcher(rule);
      for (const example of rule.examples) {
        for (const text of [example.toLowerCase(), revealed(example).toLowerCase()]) {
          if (!matches(text)) continue;
          assert.ok(
            needs.some((literal) => text.includes(literal)),
            `${rule.name}: "${example}" matches but holds none of ${JSON.stringify(needs)}`,
          );
        }
      }
    }
    assert.ok(gated >= rules.length - 6, `${gated} of ${rules.length} rules are gated`);
  });

  test('tried only where its leading strings begin, it finds what a scan finds (examples and corpus)', () => {
    const rules = labelRules(loadSpec());
    const corpus = [
      'attacks',
      'ordinary',
      'quoted',
      'held-out/attacks',
      'held-out/ordinary',
      'held-out-2/attacks',
    ].flatMap((set) =>
      (
        JSON.parse(readFileSync(`bench/corpus/labels/${set}.json`, 'utf8')) as Array<{
          title: string;
          body: string;
        }>
      ).flatMap((entry) => [entry.title, entry.body]),
    );
    let led = 0;
    let compared = 0;
    for (const rule of rules) {
      const pattern = lowerCasePattern(rule.pattern);
      const leads = leadingLiterals(pattern);
      if (leads === null) continue;
      led++;
      const find = literalFinder([], leads);
      const matches = ruleMatcher(rule);
      const every = new RegExp(pattern, 'gu');
      const texts = [...rule.examples, ...(rule.counterexamples ?? []), ...corpus];
      for (const written of texts) {
        for (const text of new Set([written.toLowerCase(), revealed(written).toLowerCase()])) {
          const { at } = find(text);
          const starts = [...new Set(leads.flatMap((lead) => at.get(lead) ?? []))].sort((a, b) => a - b);
          // Every match of the pattern, from every position, begins where a leading string does.
          every.lastIndex = 0;
          for (let match = every.exec(text); match !== null; match = every.exec(text)) {
            assert.ok(
              starts.includes(match.index),
              `${rule.name}: a match at ${match.index} of "${written}"`,
            );
            every.lastIndex = match.index + 1;
          }
          assert.equal(matches(text, starts), matches(text), `${rule.name}: "${written}"`);
          compared++;
        }
      }
    }
    assert.ok(led >= rules.length - 10, `${led} of ${rules.length} rules have leading strings`);
    assert.ok(compared > 10_000, `${compared} texts compared`);
  });
});
