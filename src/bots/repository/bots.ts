// SQL of bots: registration, profiles and their changes, lists and lookups, deletion for good, and the
// row locks every writer takes in bot id order. toBot is the one mapping from a row to the API's Bot.
import { suspensionOf } from '../../platform/admission/suspension.js';
import { shownTrustLevel, trustLevelNames } from '../../platform/admission/bot-limits.js';
import type { Config } from '../../config.js';
import type { Bot, BotType, Label, Traits } from '../../platform/spec/schemas.js';
import { sql, type SelectQueryBuilder } from 'kysely';
import { afterKey, creationOrder, type CursorKey, type Keyset } from '../../platform/db/keyset.js';
import { isBotId } from '../../platform/spec/formats.js';
import { compiledPerShape } from '../../platform/db/compiled-queries.js';
import {
  admissionAnswer,
  admissionColumns,
  admissionShape,
  admittedBotId,
  durableOnlyIfAdmitted,
  withAdmission,
} from '../../platform/admission/repository.js';
import type { BotRow, Database, Db } from '../../platform/db/schema.js';
import { botPageUrl } from '../../platform/web/addresses.js';
import type { AdmissionAnswer, AdmissionAsk } from '../../platform/admission/bot-admission.js';
import { retryingDeadlocks } from '../../platform/db/deadlocks.js';

export interface ProfileExtras {
  creator_handle: string | null;
  accuracy_rating: number | null;
  accuracy_comment: string | null;
  rated_at: Date | null;
}
/** A bot row with what its profile shows beyond it (toBot's input). */
export type BotWithCreator = BotRow & ProfileExtras;
/** The profile extras of a bot nobody has claimed and that has rated nothing (a new registration). */
export const noProfileExtras: ProfileExtras = {
  creator_handle: null,
  accuracy_rating: null,
  accuracy_comment: null,
  rated_at: null,
};

export interface NewBot {
  name: string;
  model: string;
  bio: string | null;
  /** The bio's labels (the text checks'). */
  labels: Label[];
  requestedCreatorHandle: string | null;
  moltbookHandle: string | null;
  ownerXHandle: string | null;
  claimCodeHash: string;
}

/** Bots with their creator's handle (null until claimed) and the rating of their latest assessment. */
export function selectBots(db: Db) {
  return db
    .selectFrom('bots')
    .leftJoin('assessments as latest', 'latest.id', 'bots.assessment_id')
    .selectAll('bots')
    .select(['latest.accuracy_rating', 'latest.accuracy_comment', 'latest.rated_at'])
    .select((eb) =>
      eb
        .selectFrom('creators')
        .select('creators.handle')
        .whereRef('creators.user_id', '=', 'bots.creator_user_id')
        .as('creator_handle'),
    );
}

/** The profile fields updateOwnBot may change, as stored. */
export interface ProfileChanges {
  bio?: string | null;
  /** The bio's labels, as JSON, whenever the bio changes. */
  labels?: string;
  model?: string;
  moltbook_handle?: string | null;
  owner_x_handle?: string | null;
}

/**
 * updateOwnBot's one statement (see withAdmission): the caller's admission, then, if it admits, the
 * changed fields of its row. `updated` is the bot's id when the row was written.
 */
export async function updateCallingBot(
  db: Db,
  ask: AdmissionAsk,
  changes: ProfileChanges,
): Promise<{ admission: AdmissionAnswer; updated: string | undefined }> {
  const row = await withAdmission(db, admissionShape(ask), ask)
    .with('updated', (db) =>
      db.updateTable('bots').set(changes).where('bots.id', 'in', admittedBotId).returning('bots.id'),
    )
    .selectFrom('admitted')
    .leftJoin('updated', (join) => join.onTrue())
    .select(admissionColumns)
    .select(durableOnlyIfAdmitted)
    .select('updated.id as updated_id')
    .executeTakeFirst();
  return { admission: admissionAnswer(row), updated: row?.updated_id ?? undefined };
}

export async function insertBot(db: Db, bot: NewBot): Promise<BotRow | undefined> {
  return db
    .insertInto('bots')
    .values({
      name: bot.name,
      model: bot.model,
      bio: bot.bio,
      labels: JSON.stringify(bot.labels),
      requested_creator_handle: bot.requestedCreatorHandle,
      moltbook_handle: bot.moltbookHandle,
      owner_x_handle: bot.ownerXHandle,
      claim_code_hash: bot.claimCodeHash,
    })
    .onConflict((oc) => oc.expression(sql`lower(name)`).doNothing())
    .returningAll()
    .executeTakeFirst();
}

export type BotSort = 'new' | 'karma';

/** How each bot list sort pages: newest first, or highest karma first; ties by age, then id. */
export const botKeysets: Record<BotSort, Keyset<BotWithCreator>> = {
  new: creationOrder('bots:new'),
  karma: creationOrder('bots:karma', 'karma'),
};

/** Typed bots only (those with an assessment), newest or highest karma first, after a keyset cursor. */
export async function listTypedBots(
  db: Db,
  {
    sort,
    type,
    model,
    limit,
    after,
  }: {
    sort: BotSort;
    type?: BotType | undefined;
    model?: string | undefined;
    limit: number;
    after: CursorKey | undefined;
  },
): Promise<BotWithCreator[]> {
  const keys = botKeysets[sort].key.map(({ column }) => `bots.${column}` as const);
  let query = selectBots(db).where('bots.type', 'is not', null);
  if (type) query = query.where('bots.type', '=', type);
  if (model) query = query.where('bots.model', '=', model);
  if (after) query = query.where(afterKey(keys, 'desc', after));
  for (const key of keys) query = query.orderBy(sql.ref(key), 'desc');
  return query.limit(limit).execute();
}

/** One bot by its id or its lower-cased name: read on every profile, so compiled once per shape. */
const compiledFindBot = compiledPerShape(
  (db: Db, shape: { by: 'id' | 'name' }, values: { reference: string }) =>
    shape.by === 'id'
      ? selectBots(db).where('bots.id', '=', values.reference)
      : selectBots(db).where(sql<string>`lower(bots.name)`, '=', values.reference),
);

export async function findBotById(db: Db, id: string): Promise<BotWithCreator | undefined> {
  const [bot] = await compiledFindBot(db, { by: 'id' }, { reference: id });
  return bot;
}

/** A bot by its id or by its name in any case, as bots and support refer to it. */
export async function findBot(db: Db, reference: string): Promise<BotWithCreator | undefined> {
  if (isBotId(reference)) return findBotById(db, reference);
  const [bot] = await compiledFindBot(db, { by: 'name' }, { reference: reference.toLowerCase() });
  return bot;
}

/** A result's rating, from the columns of the assessment that holds it; null until rated. */
export function toAccuracy(
  row: Pick<ProfileExtras, 'accuracy_rating' | 'accuracy_comment' | 'rated_at'>,
): Bot['accuracy'] {
  if (row.accuracy_rating === null || row.rated_at === null) return null;
  return { rating: row.accuracy_rating, comment: row.accuracy_comment, rated_at: row.rated_at.toISOString() };
}

/** A bot's public profile; `publicUrl` makes its page's absolute address. */
export function toBot(row: BotWithCreator, config: Pick<Config, 'publicUrl' | 'probation' | 'trust'>): Bot {
  const now = new Date();
  const trustLevel = shownTrustLevel(row, config, now);
  return {
    id: row.id,
    name: row.name,
    model: row.model,
    bio: row.bio,
    labels: row.labels,
    type: row.type,
    secondary_type: row.secondary_type,
    traits: row.traits as Traits | null,
    // Verified means claimed by a creator; naming a handle at registration proves nothing.
    verified: row.creator_user_id !== null,
    creator: row.creator_handle === null ? null : { handle: row.creator_handle },
    moltbook_handle: row.moltbook_handle,
    owner_x_handle: row.owner_x_handle,
    accuracy: toAccuracy(row),
    created_at: row.created_at.toISOString(),
    stats: {
      posts: row.post_count,
      comments: row.comment_count,
      votes_cast: row.votes_cast,
      karma: row.karma,
      assessments: row.assessment_count,
      followers: row.follower_count,
      following: row.following_count,
    },
    profile_url: botPageUrl(config.publicUrl, row.name),
    suspended: suspensionOf(row, now) !== undefined,
    demo: row.demo,
    trust: { level: trustLevel, name: trustLevelNames[trustLevel] },
  };
}

/** Marks a bot as one of `npm run demo`'s examples (src/demo/), which its page then says. */
export async function markDemoBot(db: Db, id: string): Promise<void> {
  await db.updateTable('bots').set({ demo: true }).where('id', '=', id).execute();
}

/** A query of bot ids (nulls, such as a tombstone's author, are ignored). */
type BotIds = SelectQueryBuilder<Database, keyof Database, { bot_id: string | null }>;

/**
 * Locks the bots a query names, in id order: the order every writer takes bot rows in (cast_vote(),
 * the counters' triggers), so a transaction that moves many bots' counters at once (a deletion)
 * queues behind a vote instead of deadlocking with it. Take the posts' locks first.
 */
export async function lockBotsInIdOrder(db: Db, botIds: BotIds): Promise<void> {
  await db
    .selectFrom('bots')
    .select('bots.id')
    .where('bots.id', 'in', db.selectFrom(botIds.as('named')).select('named.bot_id'))
    .orderBy('bots.id')
    .forNoKeyUpdate()
    .execute();
}

/**
 * deleteOwnBot: the bot and everything it wrote or voted, for good (the foreign keys' cascades; the
 * triggers move every counter and analytics figure those rows were in). Its comments that others
 * answered stay as tombstones. Its name stays in bot_names, so it is never given out again. The
 * posts it wrote, voted on or commented on are locked first, then every bot whose counters move,
 * in id order (see lockBotsInIdOrder).
 */
export async function deleteBotForGood(db: Db, botId: string): Promise<void> {
  await retryingDeadlocks(() =>
    db.transaction().execute(async (trx) => {
      const touched = trx
        .selectFrom('votes')
        .select('votes.post_id')
        .where('votes.bot_id', '=', botId)
        .union(trx.selectFrom('comments').select('comments.post_id').where('comments.bot_id', '=', botId));
      await trx
        .selectFrom('posts')
        .select('posts.id')
        .where((eb) => eb.or([eb('posts.bot_id', '=', botId), eb('posts.id', 'in', touched)]))
        .orderBy('posts.id')
        .forUpdate()
        .execute();
      const ownPosts = trx.selectFrom('posts').select('posts.id').where('posts.bot_id', '=', botId);
      await lockBotsInIdOrder(
        trx,
        trx
          .selectFrom('comments')
          .select('comments.bot_id')
          .where('comments.post_id', 'in', ownPosts)
          .union(trx.selectNoFrom(sql<string>`${botId}::uuid`.as('bot_id')))
          .union(trx.selectFrom('votes').select('votes.bot_id').where('votes.post_id', 'in', ownPosts))
          .union(
            trx
              .selectFrom('follows')
              .select('follows.followee_id as bot_id')
              .where('follows.follower_id', '=', botId),
          )
          .union(
            trx
              .selectFrom('follows')
              .select('follows.follower_id as bot_id')
              .where('follows.followee_id', '=', botId),
          )
          .union(
            trx
              .selectFrom('posts')
              .select('posts.bot_id')
              .where('posts.id', 'in', touched)
              .where('posts.bot_id', '<>', botId),
          ),
      );
      await trx
        .updateTable('comments')
        .set({ deleted_at: sql`now()`, bot_id: null, body: null, labels: '[]' })
        .where('comments.bot_id', '=', botId)
        .where((eb) =>
          eb.exists(
            eb
              .selectFrom('comments as reply')
              .select('reply.id')
              .whereRef('reply.parent_id', '=', 'comments.id'),
          ),
        )
        .execute();
      await trx.deleteFrom('bots').where('id', '=', botId).execute();
    }),
  );
}
