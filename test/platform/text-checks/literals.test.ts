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
  labelReading,
  ruleMatcher,
  readingPattern,
  ruleNeeds,
  withAtomicGroups,
} from '../../../src/platform/text-checks/labels.js';
import { readFileSync } from 'node:fs';
import {
  leadingLiterals,
  meets,
  prefilterOf,
  prefilterStrings,
} from '../../../src/platform/text-checks/literals.js';

/** Every title and body of bench/corpus/labels/. */
const corpus = [
  'attacks',
  'ordinary',
  'quoted',
  'held-out/attacks',
  'held-out/ordinary',
  'held-out-2/attacks',
  'held-out-2/ordinary',
  'held-out-3/attacks',
  'held-out-3/ordinary',
].flatMap((set) =>
  (
    JSON.parse(readFileSync(`bench/corpus/labels/${set}.json`, 'utf8')) as Array<{
      title: string;
      body: string;
    }>
  ).flatMap((entry) => [entry.title, entry.body]),
);

describe('prefilterOf', () => {
  test('a sequence needs all its parts (known text joined), an alternation one branch, a repetition one copy', () => {
    assert.deepEqual(prefilterOf('ignore\\s+(?:all|previous)\\s+instructions'), {
      all: ['ignore', { any: ['all', 'previous'] }, 'instructions'],
    });
    assert.deepEqual(prefilterOf('(?:ignore|disregard) previous'), {
      any: ['ignore previous', 'disregard previous'],
    });
    assert.deepEqual(prefilterOf('curl[^|]{0,80}\\|\\s*(?:ba)?sh|wget\\b'), { any: ['curl', 'wget'] });
    assert.deepEqual(prefilterOf('(?:abc){2,4}x'), 'abc');
    assert.deepEqual(prefilterOf(withAtomicGroups('https?://(?>[^\\s]{1,30})')), {
      all: ['http', '://'],
    });
    assert.deepEqual(prefilterOf('\\bsend\\s+your\\s+api[ _-]?keys?', 'post'), {
      all: ['send', 'your', 'api', 'key', 'post'],
    });
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
      assert.equal(prefilterOf(pattern), true, pattern);
  });

  test('a positive lookaround’s text is needed where it stands; a backreference needs nothing', () => {
    assert.deepEqual(prefilterOf('(?=(secret\\w*))\\1'), 'secret');
    assert.deepEqual(prefilterOf('(?<=token=)\\w+'), 'token=');
  });

  test('a text meets a condition by the strings it holds', () => {
    const needs = prefilterOf('\\bsend\\s+your\\s+(?:api[ _-]?keys?|password)');
    assert.deepEqual(prefilterStrings(needs).sort(), ['api', 'key', 'password', 'send', 'your']);
    assert.equal(meets(needs, new Set(['send', 'your', 'api'])), false, 'an api, no key');
    assert.equal(meets(needs, new Set(['send', 'your', 'api', 'key'])), true);
    assert.equal(meets(needs, new Set(['send', 'your', 'password'])), true);
    assert.equal(meets(true, new Set()), true);
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
  test('each text it labels, as the rules read it (and in lower case alone), meets its condition (examples and corpus)', () => {
    const rules = labelRules(loadSpec());
    let gated = 0;
    let labelled = 0;
    for (const rule of rules) {
      const needs = ruleNeeds(rule);
      if (needs === true) continue;
      gated++;
      const strings = prefilterStrings(needs);
      const matches = ruleMatcher(rule);
      for (const written of [...rule.examples, ...(rule.counterexamples ?? []), ...corpus]) {
        for (const text of new Set([written.toLowerCase(), labelReading(written)])) {
          if (!matches(text)) continue;
          labelled++;
          const held = new Set(strings.filter((s) => text.includes(s)));
          assert.ok(
            meets(needs, held),
            `${rule.name}: "${written}" matches but fails ${JSON.stringify(needs)}`,
          );
        }
      }
    }
    assert.ok(gated >= rules.length - 2, `${gated} of ${rules.length} rules are gated`);
    assert.ok(labelled > 500, `${labelled} texts labelled`);
  });

  test('tried only where its leading strings begin (its then too), it finds what a scan finds (examples and corpus)', () => {
    const rules = labelRules(loadSpec());
    let led = 0;
    let thenLed = 0;
    let compared = 0;
    for (const rule of rules) {
      const pattern = readingPattern(rule.pattern);
      const leads = leadingLiterals(pattern);
      if (leads === null) continue;
      led++;
      // Its `then` too, where its leading strings are known (else scanned, as the labeller does).
      const thenPattern = rule.then === undefined ? undefined : readingPattern(rule.then);
      const thenLeads = thenPattern === undefined ? null : leadingLiterals(thenPattern);
      if (thenLeads !== null) thenLed++;
      const find = literalFinder([], [...leads, ...(thenLeads ?? [])]);
      const matches = ruleMatcher(rule);
      const every = new RegExp(pattern, 'gu');
      const everyThen = thenLeads === null ? undefined : new RegExp(thenPattern!, 'gu');
      const texts = [...rule.examples, ...(rule.counterexamples ?? []), ...corpus];
      for (const written of texts) {
        for (const text of new Set([written.toLowerCase(), labelReading(written)])) {
          const { at } = find(text);
          const startsOf = (strings: string[]) =>
            [...new Set(strings.flatMap((lead) => at.get(lead) ?? []))].sort((a, b) => a - b);
          const starts = startsOf(leads);
          const thenStarts = thenLeads === null ? undefined : startsOf(thenLeads);
          // Every match of the pattern (and of its then), from every position, begins where a
          // leading string does.
          for (const [expression, begins] of [
            [every, starts],
            ...(everyThen ? [[everyThen, thenStarts!] as const] : []),
          ] as const) {
            expression.lastIndex = 0;
            for (let match = expression.exec(text); match !== null; match = expression.exec(text)) {
              assert.ok(
                begins.includes(match.index),
                `${rule.name}: a match at ${match.index} of "${written}"`,
              );
              expression.lastIndex = match.index + 1;
            }
          }
          assert.equal(matches(text, starts, thenStarts), matches(text), `${rule.name}: "${written}"`);
          compared++;
        }
      }
    }
    assert.ok(led >= rules.length - 10, `${led} of ${rules.length} rules have leading strings`);
    assert.ok(thenLed >= 3, `${thenLed} rules' then have leading strings`);
    assert.ok(compared > 10_000, `${compared} texts compared`);
  });
});
