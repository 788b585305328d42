// Answer sheets for the current questionnaire.
import { currentQuestionnaire } from '../../src/assessments/scoring.js';

/** Answers under which every statement of a trait counts `count` (reverse-scored ones answered 11 - count). */
export function answersCounting(counts: Record<string, number>): Record<string, number> {
  return Object.fromEntries(currentQuestionnaire.questions.map((q) => [q.id, q.reverse ? 11 - counts[q.trait]! : counts[q.trait]!]));
}

/** Answers that land on a type's prototype. */
export function answersLike(typeName: string): Record<string, number> {
  const type = currentQuestionnaire.types.find((t) => t.name === typeName)!;
  return answersCounting(Object.fromEntries(currentQuestionnaire.traits.map((trait) => [trait, 1 + Math.round((type.prototype[trait] / 100) * 9)])));
}
