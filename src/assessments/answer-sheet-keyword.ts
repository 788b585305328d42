// `x-answer-sheet` in openapi.yaml: every question of the current questionnaire answered exactly
// once, where the keyword's value names the questionnaire (`bots` for submitAssessment, `creators`
// for submitCreatorAssessment). As a validation keyword it runs with the schema's own checks
// (integers, 1-10), so one 400 names every missing, unknown, non-integer or out-of-range answer.
import type { KeywordDefinition, ErrorObject } from 'ajv';
import {
  answerSheetProblems,
  currentBotQuestionnaire,
  currentCreatorQuestionnaire,
  type AnyQuestionnaire,
} from './scoring.js';

const questionnaires: Record<string, AnyQuestionnaire> = {
  bots: currentBotQuestionnaire,
  creators: currentCreatorQuestionnaire,
};

export const answerSheetKeyword: KeywordDefinition = {
  keyword: 'x-answer-sheet',
  type: 'object',
  schemaType: 'string',
  errors: true,
  compile(which: string) {
    const questionnaire = questionnaires[which];
    if (!questionnaire) throw new Error(`x-answer-sheet: no questionnaire called "${which}"`);
    const validateAnswerSheet = (answers: Record<string, unknown>) => {
      const { missing, unknown } = answerSheetProblems(questionnaire, answers);
      const errors: Array<Partial<ErrorObject>> = [
        ...missing.map((id) => ({
          keyword: 'required',
          params: { missingProperty: id },
          message: 'is required',
        })),
        ...unknown.map((id) => ({
          keyword: 'additionalProperties',
          params: { additionalProperty: id },
          message: 'is not a question of this questionnaire',
        })),
      ];
      (validateAnswerSheet as { errors?: unknown }).errors = errors;
      return errors.length === 0;
    };
    return validateAnswerSheet;
  },
};
