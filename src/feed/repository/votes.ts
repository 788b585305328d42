// SQL of votes: votePost's admission and vote in one statement (vote_on_post(), cast_vote()).
import { sql } from 'kysely';
import { retryingDeadlocks } from '../../platform/db/deadlocks.js';
import type { Db } from '../../platform/db/schema.js';
import {
  admissionArguments,
  admissionAnswer,
  type AdmissionColumns,
} from '../../platform/admission/repository.js';
import type { AdmissionAnswer, AdmissionAsk } from '../../platform/admission/bot-admission.js';
import type { Direction } from './posts.js';

const directionValue = { up: 1, down: -1, none: 0 } as const;

export interface VoteOutcome {
  admission: AdmissionAnswer;
  /** What cast_vote() answered; undefined when the caller was not admitted. */
  outcome:
    | {
        outcome: 'post_not_found' | 'self_vote' | 'community_closed' | 'unchanged' | 'changed';
        post_id: string;
        upvotes: number;
        downvotes: number;
        score: number;
      }
    | undefined;
}

/**
 * voteOnPost's one statement, vote_on_post() (see insertPost): the caller's admission, then, if it
 * admits, one call to cast_vote() (src/feed/sql/cast_vote.sql): the post row is locked first, so all
 * vote changes on one post queue behind each other and the previous vote read is the one being
 * replaced; the votes trigger then moves the counters by the exact difference, in the same
 * transaction, with the two bots locked in id order.
 */
export async function castVote(
  db: Db,
  ask: AdmissionAsk,
  vote: { postId: string; direction: Direction },
): Promise<VoteOutcome> {
  const { rows } = await retryingDeadlocks(() =>
    sql<CastVoteRow>`select * from vote_on_post(${admissionArguments(ask)},
      ${vote.postId}, ${directionValue[vote.direction]})`.execute(db),
  );
  const row = rows[0];
  const admission = admissionAnswer(row);
  if (!row?.outcome) return { admission, outcome: undefined };
  const { outcome, post_id, upvotes, downvotes, score } = row;
  return {
    admission,
    outcome: { outcome, post_id: post_id!, upvotes: upvotes!, downvotes: downvotes!, score: score! },
  };
}

/** What vote_on_post() answers: the admission's columns and, when it admitted, cast_vote()'s. */
type CastVoteRow = AdmissionColumns & {
  [Column in keyof NonNullable<VoteOutcome['outcome']>]: NonNullable<VoteOutcome['outcome']>[Column] | null;
};
