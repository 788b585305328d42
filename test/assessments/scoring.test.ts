import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { answerSheetProblems, currentQuestionnaire as questionnaire, scoreAnswers, type Traits } from '../../src/assessments/scoring.js';

/** Answers under which every statement of a trait counts `count` (reverse-scored ones answered 11 - count). */
function answersCounting(counts: Record<string, number>) {
  return Object.fromEntries(questionnaire.questions.map((q) => [q.id, q.reverse ? 11 - counts[q.trait]! : counts[q.trait]!]));
}

describe('the questionnaire', () => {
  test('has several dozen statements, each trait several of them, some reverse-scored, and 8 documented types', () => {
    assert.ok(questionnaire.questions.length >= 40);
    assert.equal(new Set(questionnaire.questions.map((q) => q.id)).size, questionnaire.questions.length);
    for (const trait of questionnaire.traits) {
      const statements = questionnaire.questions.filter((q) => q.trait === trait);
      assert.ok(statements.length >= 5, trait);
      assert.ok(statements.some((q) => q.reverse) && statements.some((q) => !q.reverse), trait);
    }
    assert.deepEqual(questionnaire.types.map((t) => t.name).sort(), ['architect', 'blade', 'echo', 'ghost', 'jester', 'oracle', 'shield', 'spark']);
    for (const type of questionnaire.types) assert.ok(type.description.length > 80, type.name);
  });
});

describe('scoreAnswers', () => {
  test('the worked example of src/assessments/README.md gives exactly the result written there', () => {
    const doc = readFileSync(new URL('../../src/assessments/README.md', import.meta.url), 'utf8');
    const block = /```json worked-example\n([\s\S]*?)```/.exec(doc);
    assert.ok(block, 'the README has a worked-example block');
    const example = JSON.parse(block[1]!) as { counts: Record<string, number>; result: object };
    const { summary, ...result } = scoreAnswers(questionnaire, answersCounting(example.counts));
    assert.deepEqual(result, example.result);
    assert.equal(summary, questionnaire.types.find((t) => t.name === 'oracle')!.description);
  });

  test('a bot that answers like a prototype gets that type', () => {
    for (const type of questionnaire.types) {
      const counts = Object.fromEntries(questionnaire.traits.map((trait) => [trait, 1 + Math.round((type.prototype[trait] / 100) * 9)]));
      assert.equal(scoreAnswers(questionnaire, answersCounting(counts)).type, type.name);
    }
  });

  test('reverse-scored statements count the other way', () => {
    const agreeWithEverything = Object.fromEntries(questionnaire.questions.map((q) => [q.id, 10]));
    const traits = scoreAnswers(questionnaire, agreeWithEverything).traits;
    for (const trait of questionnaire.traits) {
      const statements = questionnaire.questions.filter((q) => q.trait === trait);
      const reversed = statements.filter((q) => q.reverse).length;
      const mean = ((statements.length - reversed) * 10 + reversed * 1) / statements.length;
      assert.equal(traits[trait as keyof Traits], Math.round(((mean - 1) / 9) * 100), trait);
    }
  });

  test('scores stay within 0-100, and the same answers give the same result', () => {
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let run = 0; run < 200; run++) {
      const answers = Object.fromEntries(questionnaire.questions.map((q) => [q.id, 1 + Math.floor(next() * 10)]));
      const result = scoreAnswers(questionnaire, answers);
      assert.deepEqual(scoreAnswers(questionnaire, { ...answers }), result);
      assert.ok(Object.values(result.traits).every((score) => Number.isInteger(score) && score >= 0 && score <= 100));
      assert.ok(result.confidence >= 0 && result.confidence <= 100);
      assert.notEqual(result.type, result.secondary_type);
    }
  });

  test('extremes: all 1 maps to 0 and all 10 to 100 where no statement is reversed', () => {
    const counts = (value: number) => Object.fromEntries(questionnaire.traits.map((t) => [t, value]));
    assert.deepEqual(Object.values(scoreAnswers(questionnaire, answersCounting(counts(1))).traits), Array(7).fill(0));
    assert.deepEqual(Object.values(scoreAnswers(questionnaire, answersCounting(counts(10))).traits), Array(7).fill(100));
  });
});

describe('answerSheetProblems', () => {
  test('names missing and unknown question ids', () => {
    const answers: Record<string, number> = answersCounting(Object.fromEntries(questionnaire.traits.map((t) => [t, 5])));
    delete answers.q3;
    delete answers.q49;
    answers.q50 = 4;
    assert.deepEqual(answerSheetProblems(questionnaire, answers), { missing: ['q3', 'q49'], unknown: ['q50'] });
  });
});
