// The questionnaires and their math, pure and deterministic (documented with worked examples in
// README.md beside this file): answers -> trait scores 0-100 -> nearest type prototype. Bots and
// creators each have their own questionnaires, scored the same way.
import type { BotType, CreatorTraits, CreatorType, Traits } from '../platform/spec/schemas.js';
import type { components } from '../../generated/openapi.js';
import botsV1 from './bots-v1.json' with { type: 'json' };
import botsV2 from './bots-v2.json' with { type: 'json' };
import creatorsV1 from './creators-v1.json' with { type: 'json' };

/** A questionnaire whose statements each feed one trait, and whose types are prototypes over those traits. */
export interface Questionnaire<
  TraitScores extends object = Record<string, number>,
  TypeName extends string = string,
> {
  version: number;
  scale: components['schemas']['Questionnaire']['scale'];
  traits: Array<keyof TraitScores & string>;
  questions: Array<{ id: string; text: string; trait: keyof TraitScores & string; reverse: boolean }>;
  types: Array<{ name: TypeName; prototype: TraitScores; description: string }>;
}

/** What every questionnaire has, whatever its traits and types: enough to publish one and check an answer sheet. */
export type AnyQuestionnaire = Pick<Questionnaire, 'version' | 'scale' | 'questions'> & {
  types: Array<{ name: string; description: string }>;
};

export type BotQuestionnaire = Questionnaire<Traits, BotType>;
export type CreatorQuestionnaire = Questionnaire<CreatorTraits, CreatorType>;

/** Every version of the bots' questionnaire, kept so that every stored result stays explainable. */
export const botQuestionnaires: ReadonlyMap<number, BotQuestionnaire> = new Map([
  [1, botsV1 as BotQuestionnaire],
  [2, botsV2 as BotQuestionnaire],
]);

/** The questionnaire bots are given now. */
export const currentBotQuestionnaire = botQuestionnaires.get(2)!;

/** Every version of the creators' questionnaire. */
export const creatorQuestionnaires: ReadonlyMap<number, CreatorQuestionnaire> = new Map([
  [1, creatorsV1 as CreatorQuestionnaire],
]);

/** The questionnaire creators are given now. */
export const currentCreatorQuestionnaire = creatorQuestionnaires.get(1)!;

export interface Result<TraitScores extends object, TypeName extends string> {
  traits: TraitScores;
  type: TypeName;
  secondary_type: TypeName;
  confidence: number;
  summary: string;
}

/**
 * Scores a complete answer sheet (every question of the questionnaire, each 1-10; checked before).
 * 1. Each answer counts as given, or as 11 - answer for a reverse-scored statement.
 * 2. A trait's score is the mean of its statements' counts, mapped from 1..10 to 0..100 and rounded.
 * 3. The type is the prototype nearest to the trait scores (Euclidean distance), the secondary type
 *    the next nearest; ties go to the type listed first in the questionnaire.
 * 4. Confidence is how much nearer the type is than the runner-up: round(100 * (d2 - d1) / d2).
 */
export function scoreAnswers<TraitScores extends object, TypeName extends string>(
  questionnaire: Questionnaire<TraitScores, TypeName>,
  answers: Record<string, number>,
): Result<TraitScores, TypeName> {
  const traits = Object.fromEntries(
    questionnaire.traits.map((trait) => {
      const counts = questionnaire.questions
        .filter((q) => q.trait === trait)
        .map((q) => (q.reverse ? 11 - answers[q.id]! : answers[q.id]!));
      const mean = counts.reduce((sum, count) => sum + count, 0) / counts.length;
      return [trait, Math.round(((mean - 1) / 9) * 100)];
    }),
  ) as Record<string, number>;
  const prototypeScore = (prototype: TraitScores, trait: string) =>
    (prototype as Record<string, number>)[trait]!;

  const ranked = questionnaire.types
    .map((type, order) => ({
      type,
      order,
      distance: Math.sqrt(
        questionnaire.traits.reduce(
          (sum, trait) => sum + (traits[trait]! - prototypeScore(type.prototype, trait)) ** 2,
          0,
        ),
      ),
    }))
    .sort((a, b) => a.distance - b.distance || a.order - b.order);
  const [first, second] = [ranked[0]!, ranked[1]!];
  return {
    traits: traits as TraitScores,
    type: first.type.name,
    secondary_type: second.type.name,
    confidence:
      second.distance === 0 ? 0 : Math.round((100 * (second.distance - first.distance)) / second.distance),
    summary: first.type.description,
  };
}

/** A type's description in the questionnaire version a result was scored with. */
export function describeType(questionnaire: AnyQuestionnaire, type: string): string {
  const found = questionnaire.types.find((t) => t.name === type);
  if (!found) throw new Error(`questionnaire version ${questionnaire.version} has no type ${type}`);
  return found.description;
}

/** Questions left unanswered, and answers to questions the questionnaire does not have. */
export function answerSheetProblems(questionnaire: AnyQuestionnaire, answers: Record<string, unknown>) {
  const asked = new Set(questionnaire.questions.map((q) => q.id));
  return {
    missing: questionnaire.questions.map((q) => q.id).filter((id) => !(id in answers)),
    unknown: Object.keys(answers).filter((id) => !asked.has(id)),
  };
}

/** Questionnaires change only with a release: clients and CDNs may keep them an hour. */
export const questionsCacheControl = 'public, max-age=3600';

/** What `getQuestions` and `getCreatorQuestions` publish of a questionnaire: no traits, no scoring keys. */
export function publishedQuestionnaire(
  questionnaire: AnyQuestionnaire,
): components['schemas']['Questionnaire'] {
  return {
    version: questionnaire.version,
    scale: questionnaire.scale,
    questions: questionnaire.questions.map(({ id, text }) => ({ id, text })),
  };
}
