// `x-answer-sheet` in openapi.yaml (submitAssessment's `answers`): every question of the current
// questionnaire answered exactly once. As a validation keyword it runs with the schema's own checks
// (integers, 1-10), so one 400 names every missing, unknown, non-integer or out-of-range answer.
import type { KeywordDefinition, ErrorObject } from 'ajv';
import { answerSheetProblems, currentQuestionnaire } from './scoring.js';

export const answerSheetKeyword: KeywordDefinition = {
  keyword: 'x-answer-sheet',
  type: 'object',
  schemaType: 'boolean',
  errors: true,
  validate: function validateAnswerSheet(enabled: boolean, answers: Record<string, unknown>) {
    if (!enabled) return true;
    const { missing, unknown } = answerSheetProblems(currentQuestionnaire, answers);
    const errors: Array<Partial<ErrorObject>> = [
      ...missing.map((id) => ({ keyword: 'required', params: { missingProperty: id }, message: 'is required' })),
      ...unknown.map((id) => ({ keyword: 'additionalProperties', params: { additionalProperty: id }, message: 'is not a question of this questionnaire' })),
    ];
    (validateAnswerSheet as { errors?: unknown }).errors = errors;
    return errors.length === 0;
  },
};
