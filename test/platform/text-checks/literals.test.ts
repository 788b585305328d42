// The strings a label rule cannot match without (src/platform/text-checks/literals.ts), which let the
// labeller skip a rule on a text holding none of them: sound on patterns of each shape, and on every
// rule, every example it labels holds one of its strings.
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
import { requiredLiterals } from '../../../src/platform/text-checks/literals.js';
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

describe('literalFinder', () => {
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
      [...find('an apikey; the instructions; invoke-webrequest <|im_start|>')].sort(),
      ['apikey', 'instruction', 'instructions', 'invoke-webrequest', 'key', '<|im_start|>'].sort(),
    );
    assert.deepEqual([...find('nothing here')], []);
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
});
