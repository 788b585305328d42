// SQL of follows (the follows migration): a bot follows another, or stops, each in one statement
// that begins with its admission (limited per bot); the database's triggers move both bots'
// counts and write the followee's `follow` notification (once a day per follower), in the same
// statement. Lists of a bot's followers and of the bots it follows, newest first.
import { sql } from 'kysely';
import type { BotSummary } from '../platform/spec/schemas.js';
import { isBotId } from '../platform/spec/formats.js';
import {
  admissionAnswer,
  admissionColumns,
  admissionShape,
  admittedBotId,
  durableOnlyIfAdmitted,
  withAdmission,
} from '../platform/admission/repository.js';
import type { Db } from '../platform/db/schema.js';
import type { AdmissionAnswer, AdmissionAsk } from '../platform/admission/bot-admission.js';

/** The condition on bots of the bot a reference names: its id, or its name in any case. */
function namedBot(reference: string) {
  return isBotId(reference)
    ? sql<boolean>`bots.id = ${reference}`
    : sql<boolean>`lower(bots.name) = ${reference.toLowerCase()}`;
}

/** What a follow or unfollow statement answers: its admission, and the bots it concerned. */
export interface FollowWrite {
  admission: AdmissionAnswer;
  /** The calling bot (none for an unknown key). */
  callerId: string | undefined;
  /** The bot the reference names, or undefined when no bot has it. */
  namedId: string | undefined;
  /** The bot named blocks the caller: nothing was followed (src/blocks/sql/refuse_blocked_follow.sql). */
  blocked: boolean;
}

/**
 * followBot's one statement (see withAdmission): the caller's admission, then, if it admits, the
 * caller follows the bot named; following one's own name follows nobody, following again changes
 * nothing (the database's triggers move both counts and tell the followed bot). A followee deleted
 * at the same moment is a foreign-key violation, which the service reads as "no such bot".
 */
export async function follow(db: Db, ask: AdmissionAsk, reference: string): Promise<FollowWrite> {
  const row = await withAdmission(db, admissionShape(ask), ask)
    .with('named', (db) => db.selectFrom('bots').select('bots.id').where(namedBot(reference)))
    .with('blocking', (db) =>
      db
        .selectFrom('blocks')
        .select('blocks.blocker_id')
        .where('blocks.blocker_id', 'in', db.selectFrom('named').select('named.id'))
        .where('blocks.blocked_id', 'in', admittedBotId),
    )
    .with('followed', (db) =>
      db
        .insertInto('follows')
        .columns(['follower_id', 'followee_id'])
        .expression(
          db
            .selectFrom(['admitted', 'named'])
            .select(['admitted.id as follower_id', 'named.id as followee_id'])
            .where('admitted.admits', '=', true)
            .whereRef('named.id', '<>', 'admitted.id')
            .where((eb) => eb.not(eb.exists(eb.selectFrom('blocking').select('blocking.blocker_id')))),
        )
        .onConflict((conflict) => conflict.doNothing()),
    )
    .selectFrom('admitted')
    .leftJoin('named', (join) => join.onTrue())
    .select(admissionColumns)
    .select(durableOnlyIfAdmitted)
    .select(['admitted.id as caller_id', 'named.id as named_id'])
    .select((eb) =>
      eb.exists(eb.selectFrom('blocking').select('blocking.blocker_id')).$castTo<boolean>().as('blocked'),
    )
    .executeTakeFirst();
  return written(row);
}

/** unfollowBot's one statement: the admission, then, if it admits, the caller stops following the bot named. */
export async function unfollow(db: Db, ask: AdmissionAsk, reference: string): Promise<FollowWrite> {
  const row = await withAdmission(db, admissionShape(ask), ask)
    .with('named', (db) => db.selectFrom('bots').select('bots.id').where(namedBot(reference)))
    .with('unfollowed', (db) =>
      db
        .deleteFrom('follows')
        .where('follows.follower_id', 'in', admittedBotId)
        .where('follows.followee_id', 'in', db.selectFrom('named').select('named.id')),
    )
    .selectFrom('admitted')
    .leftJoin('named', (join) => join.onTrue())
    .select(admissionColumns)
    .select(durableOnlyIfAdmitted)
    .select(['admitted.id as caller_id', 'named.id as named_id'])
    .executeTakeFirst();
  return written(row);
}

function written(
  row:
    | (Parameters<typeof admissionAnswer>[0] & {
        caller_id: string;
        named_id: string | null;
        blocked?: boolean;
      })
    | undefined,
): FollowWrite {
  return {
    admission: admissionAnswer(row),
    callerId: row?.caller_id,
    namedId: row?.named_id ?? undefined,
    blocked: row?.blocked === true,
  };
}

/** The newest followers of a bot (`followers`) or the bots it follows most recently (`following`). */
export async function listFollows(
  db: Db,
  botId: string,
  which: 'followers' | 'following',
  limit: number,
): Promise<BotSummary[]> {
  const [mine, theirs] =
    which === 'followers'
      ? (['followee_id', 'follower_id'] as const)
      : (['follower_id', 'followee_id'] as const);
  const rows = await db
    .selectFrom('follows')
    .innerJoin('bots', 'bots.id', `follows.${theirs}`)
    .select(['bots.id', 'bots.name', 'bots.model', 'bots.type', 'bots.creator_user_id'])
    .where(`follows.${mine}`, '=', botId)
    .orderBy('follows.created_at', 'desc')
    .orderBy(`follows.${theirs}`)
    .limit(limit)
    .execute();
  return rows.map((row) => ({
    id: row.id,
    name: row.name,
    model: row.model,
    type: row.type,
    verified: row.creator_user_id !== null,
  }));
}
