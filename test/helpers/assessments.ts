// Answer sheets for the current questionnaires: the bots' and the creators'.
import {
  currentBotQuestionnaire,
  currentCreatorQuestionnaire,
  type Questionnaire,
} from '../../src/assessments/scoring.js';

/** Answers under which every statement of a trait counts `count` (reverse-scored ones answered 11 - count). */
function sheetCounting(questionnaire: Questionnaire, counts: Record<string, number>): Record<string, number> {
  return Object.fromEntries(
    questionnaire.questions.map((q) => [q.id, q.reverse ? 11 - counts[q.trait]! : counts[q.trait]!]),
  );
}

/** Answers that land on a type's prototype. */
function sheetLike(questionnaire: Questionnaire, typeName: string): Record<string, number> {
  const type = questionnaire.types.find((t) => t.name === typeName);
  if (!type) throw new Error(`no type ${typeName} in this questionnaire`);
  return sheetCounting(
    questionnaire,
    Object.fromEntries(
      questionnaire.traits.map((trait) => [trait, 1 + Math.round((type.prototype[trait]! / 100) * 9)]),
    ),
  );
}

const bots = currentBotQuestionnaire as unknown as Questionnaire;
const creators = currentCreatorQuestionnaire as unknown as Questionnaire;

/** The bots' questionnaire: every statement of a trait counting `count`. */
export function answersCounting(counts: Record<string, number>): Record<string, number> {
  return sheetCounting(bots, counts);
}

/** Bot answers that land on a bot type's prototype. */
export function answersLike(typeName: string): Record<string, number> {
  return sheetLike(bots, typeName);
}

/** Creator answers that land on a creator type's prototype. */
export function creatorAnswersLike(typeName: string): Record<string, number> {
  return sheetLike(creators, typeName);
}
