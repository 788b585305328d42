// The questionnaires and their pure scoring (src/assessments/scoring.ts), for bots and creators.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import {
  answerSheetProblems,
  botQuestionnaires,
  currentBotQuestionnaire,
  currentCreatorQuestionnaire,
  scoreAnswers,
  type Questionnaire,
} from '../../src/assessments/scoring.js';
import { random } from '../helpers/fuzz.js';

const readme = readFileSync(new URL('../../src/assessments/README.md', import.meta.url), 'utf8');

/** Answers under which every statement of a trait counts `count` (reverse-scored ones answered 11 - count). */
function answersCounting(questionnaire: Questionnaire, counts: Record<string, number>) {
  return Object.fromEntries(
    questionnaire.questions.map((q) => [q.id, q.reverse ? 11 - counts[q.trait]! : counts[q.trait]!]),
  );
}

/** How often each type comes out of `sheets` answer sheets whose every answer is uniformly random. */
function typeShares(questionnaire: Questionnaire, sheets: number, seed: number) {
  const rng = random(seed);
  const counts = new Map<string, number>(questionnaire.types.map((type) => [type.name, 0]));
  for (let i = 0; i < sheets; i++) {
    const answers = Object.fromEntries(questionnaire.questions.map((q) => [q.id, rng.int(1, 10)]));
    const { type } = scoreAnswers(questionnaire, answers);
    counts.set(type, counts.get(type)! + 1);
  }
  return new Map([...counts].map(([type, n]) => [type, n / sheets]));
}

const families = [
  {
    name: 'bots',
    questionnaire: currentBotQuestionnaire as unknown as Questionnaire,
    types: ['architect', 'blade', 'echo', 'ghost', 'jester', 'oracle', 'shield', 'spark'],
    block: 'worked-example',
  },
  {
    name: 'creators',
    questionnaire: currentCreatorQuestionnaire as unknown as Questionnaire,
    types: ['alchemist', 'forge', 'gambler', 'gardener', 'overseer', 'patron', 'shepherd', 'taskmaster'],
    block: 'creator-worked-example',
  },
];

describe("the bots' questionnaire", () => {
  test('version 2 has exactly 56 statements, q1 to q56, 8 for each of the 7 traits', () => {
    assert.equal(currentBotQuestionnaire.version, 2);
    assert.deepEqual(
      currentBotQuestionnaire.questions.map((q) => q.id),
      Array.from({ length: 56 }, (_, i) => `q${i + 1}`),
    );
    for (const trait of currentBotQuestionnaire.traits)
      assert.equal(currentBotQuestionnaire.questions.filter((q) => q.trait === trait).length, 8, trait);
  });

  test('version 1 is kept, so results taken on it stay explainable, with the same traits and types', () => {
    const v1 = botQuestionnaires.get(1)!;
    assert.equal(v1.questions.length, 49);
    assert.deepEqual(v1.traits, currentBotQuestionnaire.traits);
    assert.deepEqual(
      v1.types.map((t) => t.name),
      currentBotQuestionnaire.types.map((t) => t.name),
    );
  });
});

for (const family of families) {
  const { questionnaire } = family;

  describe(`the ${family.name}' questionnaire`, () => {
    test('has several dozen statements, each trait several of them, some reverse-scored, and 8 documented types', () => {
      assert.ok(questionnaire.questions.length >= 40);
      assert.equal(new Set(questionnaire.questions.map((q) => q.id)).size, questionnaire.questions.length);
      assert.equal(new Set(questionnaire.questions.map((q) => q.text)).size, questionnaire.questions.length);
      for (const trait of questionnaire.traits) {
        const statements = questionnaire.questions.filter((q) => q.trait === trait);
        assert.ok(statements.length >= 5, trait);
        assert.ok(statements.some((q) => q.reverse) && statements.some((q) => !q.reverse), trait);
      }
      assert.deepEqual(questionnaire.types.map((t) => t.name).sort(), family.types);
      for (const type of questionnaire.types) assert.ok(type.description.length > 80, type.name);
    });

    test('no type is a dead letter: over 10,000 uniformly random answer sheets each type comes out 6-20% of the time', () => {
      const shares = typeShares(questionnaire, 10_000, 20261123);
      for (const [type, share] of shares)
        assert.ok(share >= 0.06 && share <= 0.2, `${type}: ${(share * 100).toFixed(1)}%`);
    });
  });

  describe(`scoreAnswers (${family.name})`, () => {
    test('the worked example of src/assessments/README.md gives exactly the result written there', () => {
      const block = new RegExp('```json ' + family.block + '\\n([\\s\\S]*?)```').exec(readme);
      assert.ok(block, `the README has a ${family.block} block`);
      const example = JSON.parse(block[1]!) as { counts: Record<string, number>; result: { type: string } };
      const { summary, ...result } = scoreAnswers(
        questionnaire,
        answersCounting(questionnaire, example.counts),
      );
      assert.deepEqual(result, example.result);
      assert.equal(summary, questionnaire.types.find((t) => t.name === example.result.type)!.description);
    });

    test('an answer sheet that lands on a prototype gets that type', () => {
      for (const type of questionnaire.types) {
        const counts = Object.fromEntries(
          questionnaire.traits.map((trait) => [trait, 1 + Math.round((type.prototype[trait]! / 100) * 9)]),
        );
        assert.equal(scoreAnswers(questionnaire, answersCounting(questionnaire, counts)).type, type.name);
      }
    });

    test('reverse-scored statements count the other way', () => {
      const agreeWithEverything = Object.fromEntries(questionnaire.questions.map((q) => [q.id, 10]));
      const traits = scoreAnswers(questionnaire, agreeWithEverything).traits;
      for (const trait of questionnaire.traits) {
        const statements = questionnaire.questions.filter((q) => q.trait === trait);
        const reversed = statements.filter((q) => q.reverse).length;
        const mean = ((statements.length - reversed) * 10 + reversed * 1) / statements.length;
        assert.equal(traits[trait], Math.round(((mean - 1) / 9) * 100), trait);
      }
    });

    test('scores stay within 0-100, and the same answers give the same result', () => {
      const rng = random(7);
      for (let run = 0; run < 200; run++) {
        const answers = Object.fromEntries(questionnaire.questions.map((q) => [q.id, rng.int(1, 10)]));
        const result = scoreAnswers(questionnaire, answers);
        assert.deepEqual(scoreAnswers(questionnaire, { ...answers }), result);
        assert.ok(
          Object.values(result.traits).every(
            (score) => Number.isInteger(score) && score >= 0 && score <= 100,
          ),
        );
        assert.ok(result.confidence >= 0 && result.confidence <= 100);
        assert.notEqual(result.type, result.secondary_type);
      }
    });

    test('extremes: all 1 maps to 0 and all 10 to 100 where no statement is reversed', () => {
      const counts = (value: number) => Object.fromEntries(questionnaire.traits.map((t) => [t, value]));
      assert.deepEqual(
        Object.values(scoreAnswers(questionnaire, answersCounting(questionnaire, counts(1))).traits),
        Array(7).fill(0),
      );
      assert.deepEqual(
        Object.values(scoreAnswers(questionnaire, answersCounting(questionnaire, counts(10))).traits),
        Array(7).fill(100),
      );
    });
  });
}

describe('answerSheetProblems', () => {
  test('names missing and unknown question ids', () => {
    const answers: Record<string, number> = answersCounting(
      currentBotQuestionnaire as unknown as Questionnaire,
      Object.fromEntries(currentBotQuestionnaire.traits.map((t) => [t, 5])),
    );
    delete answers.q3;
    delete answers.q56;
    answers.q57 = 4;
    assert.deepEqual(answerSheetProblems(currentBotQuestionnaire, answers), {
      missing: ['q3', 'q56'],
      unknown: ['q57'],
    });
  });
});
