// The assessment's math, pure and deterministic (documented with a worked example in README.md
// beside this file): answers -> trait scores 0-100 -> nearest type prototype.
import type { components } from '../../generated/openapi.js';
import questionnaireV1 from './v1.json' with { type: 'json' };

export type BotType = components['schemas']['BotType'];
export type Traits = components['schemas']['Traits'];
type Trait = keyof Traits;

export interface Questionnaire {
  version: number;
  scale: components['schemas']['Questionnaire']['scale'];
  traits: Trait[];
  questions: Array<{ id: string; text: string; trait: Trait; reverse: boolean }>;
  types: Array<{ name: BotType; prototype: Traits; description: string }>;
}

/** Every questionnaire version, kept so that every stored result stays explainable. */
export const questionnaires: ReadonlyMap<number, Questionnaire> = new Map([[1, questionnaireV1 as Questionnaire]]);

/** The questionnaire bots are given now. */
export const currentQuestionnaire = questionnaires.get(1)!;

export interface Result {
  traits: Traits;
  type: BotType;
  secondary_type: BotType;
  confidence: number;
  summary: string;
}

/**
 * Scores a complete answer sheet (every question of the questionnaire, each 1-10; checked before).
 * 1. Each answer counts as given, or as 11 - answer for a reverse-scored statement.
 * 2. A trait's score is the mean of its statements' counts, mapped from 1..10 to 0..100 and rounded.
 * 3. The type is the prototype nearest to the seven trait scores (Euclidean distance), the
 *    secondary type the next nearest; ties go to the type listed first in the questionnaire.
 * 4. Confidence is how much nearer the type is than the runner-up: round(100 * (d2 - d1) / d2).
 */
export function scoreAnswers(questionnaire: Questionnaire, answers: Record<string, number>): Result {
  const traits = Object.fromEntries(
    questionnaire.traits.map((trait) => {
      const counts = questionnaire.questions
        .filter((q) => q.trait === trait)
        .map((q) => (q.reverse ? 11 - answers[q.id]! : answers[q.id]!));
      const mean = counts.reduce((sum, count) => sum + count, 0) / counts.length;
      return [trait, Math.round(((mean - 1) / 9) * 100)];
    }),
  ) as unknown as Traits;

  const ranked = questionnaire.types
    .map((type, order) => ({ type, order, distance: Math.sqrt(questionnaire.traits.reduce((sum, trait) => sum + (traits[trait] - type.prototype[trait]) ** 2, 0)) }))
    .sort((a, b) => a.distance - b.distance || a.order - b.order);
  const [first, second] = [ranked[0]!, ranked[1]!];
  return {
    traits,
    type: first.type.name,
    secondary_type: second.type.name,
    confidence: second.distance === 0 ? 0 : Math.round((100 * (second.distance - first.distance)) / second.distance),
    summary: first.type.description,
  };
}

/** Questions left unanswered, and answers to questions the questionnaire does not have. */
export function answerSheetProblems(questionnaire: Questionnaire, answers: Record<string, unknown>) {
  const asked = new Set(questionnaire.questions.map((q) => q.id));
  return {
    missing: questionnaire.questions.map((q) => q.id).filter((id) => !(id in answers)),
    unknown: Object.keys(answers).filter((id) => !asked.has(id)),
  };
}
