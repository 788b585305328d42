// The tables of assessment results, a bot's and a creator's (src/assessments/, src/creators/).
import type { BotType, CreatorType } from '../../spec/schemas.js';
import type { ColumnType, Generated } from 'kysely';
import type { CreatedAt } from './columns.js';

/** The columns every scored result has, a bot's (assessments) or a creator's (creator_assessments). */
export interface ScoredResultColumns<Type extends BotType | CreatorType> {
  id: Generated<string>;
  /** The questionnaire version answered. */
  version: number;
  answers: ColumnType<Record<string, number>, string, never>;
  type: Type;
  secondary_type: Type;
  traits: ColumnType<Record<string, number>, string, never>;
  confidence: number;
  created_at: CreatedAt;
}

export interface AssessmentsTable extends ScoredResultColumns<BotType> {
  bot_id: string;
  /** The bot's type before this result, when this result changed it. */
  drift_from: BotType | null;
  creator_guess_type: CreatorType | null;
  /** The bot's rating of how well the result fits it (1-5), with its comment; null until rated. */
  accuracy_rating: number | null;
  accuracy_comment: string | null;
  rated_at: Date | null;
}

/** Every creators' test result (the creator's type is the latest). */
export interface CreatorAssessmentsTable extends ScoredResultColumns<CreatorType> {
  user_id: string;
}
