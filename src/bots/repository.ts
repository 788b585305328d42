// SQL for bots and their API keys. Functions take the database or a transaction first; toBot is
// the one mapping from a row to the API's Bot.
import { suspensionOf } from '../platform/admission/suspension.js';
import type { Bot, BotType, Traits } from '../platform/spec/schemas.js';
import { sql, type SelectQueryBuilder } from 'kysely';
import { afterKey, creationOrder, type CursorKey, type Keyset } from '../platform/db/keyset.js';
import { uuidPattern } from '../platform/spec/formats.js';
import { compiledPerShape } from '../platform/db/compiled-queries.js';
import {
  admissionAnswer,
  admissionColumns,
  admissionShape,
  admittedBotId,
  durableOnlyIfAdmitted,
  earlierAnswer,
  firstUse,
  idempotentWriteColumns,
  rememberedAnswer,
  withAdmission,
} from '../platform/admission/repository.js';
import type { ApiKeyEvent, BotRow, Database, Db } from '../platform/db/schema.js';
import { botPageUrl } from '../platform/web/addresses.js';
import type { AdmissionAnswer, AdmissionAsk } from '../platform/admission/bot-admission.js';
import { retryingDeadlocks } from '../platform/db/deadlocks.js';
import type { IdempotentWrite } from '../platform/idempotency/idempotent-write.js';

/** What a public profile shows beyond the bot row: its creator's handle and the rating of its latest result. */
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

/** Whether a bot reference (an id or a name) is an id: names are never shaped like a UUID. */
export function isBotId(reference: string): boolean {
  return uuidPattern.test(reference);
}

export interface NewBot {
  name: string;
  model: string;
  bio: string | null;
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

/**
 * Revokes a bot's live key and, given a new one, issues it (`rotated`); without one, records the
 * revocation (`revoked`) if there was a live key. The bot row is locked first, so concurrent
 * commands on one bot queue and it never has two live keys. Undefined for an unknown bot.
 */
export async function replaceApiKey(
  db: Db,
  reference: string,
  actor: string,
  newKey: { keyHash: string; displayPrefix: string } | undefined,
): Promise<
  { bot: BotWithCreator; revokedPrefix: string | undefined; issuedAt: Date | undefined } | undefined
> {
  return db.transaction().execute(async (trx) => {
    const bot = await findBot(trx, reference);
    // Deleted meanwhile (deleteOwnBot): nothing to rotate.
    const locked =
      bot &&
      (await trx.selectFrom('bots').select('id').where('id', '=', bot.id).forUpdate().executeTakeFirst());
    if (!bot || !locked) return undefined;
    const revokedPrefix = await revokeLiveApiKey(trx, bot.id);
    let issuedAt: Date | undefined;
    if (newKey) {
      issuedAt = await insertApiKey(trx, { botId: bot.id, ...newKey });
      await recordApiKeyEvent(trx, {
        botId: bot.id,
        event: 'rotated',
        actor,
        keyPrefix: newKey.displayPrefix,
      });
    } else if (revokedPrefix !== undefined) {
      await recordApiKeyEvent(trx, { botId: bot.id, event: 'revoked', actor, keyPrefix: revokedPrefix });
    }
    return { bot, revokedPrefix, issuedAt };
  });
}

/**
 * rotateOwnKey's one statement (see withAdmission): the caller's admission, then, if it admits, the
 * key that called revoked, a new one issued and the rotation recorded with the bot as its actor.
 * The new key is inserted from the revoked row, so the bot's one live key is gone before the
 * second exists (api_keys_one_live_key_per_bot), and a second rotation racing with the same key
 * finds it revoked once the first commits, and issues nothing: its admission then answers as for
 * an unknown key, or, with an Idempotency-Key, as a key in use (its retry finds the first's
 * answer if the first had its key). With an Idempotency-Key the answer remembered is the new key
 * sealed for the key that called (`sealedKey`), which may replay it though revoked.
 */
export async function rotateCallersKey(
  db: Db,
  ask: AdmissionAsk,
  newKey: { keyHash: string; displayPrefix: string; sealedKey: string | null },
): Promise<IdempotentWrite<{ issuedAt: Date | undefined; earlierAskedBy: string | undefined }>> {
  const shape = admissionShape(ask, 'asking-key');
  // The rotation revokes the very row a first use would clear, and one statement must not update a
  // row twice (Postgres does not say which wins): the first use is marked only when nothing was
  // revoked (a replay, a 429), and a revoked key needs no clearing.
  const row = await withAdmission(db, shape, ask, { markFirstUse: false })
    .with('revoked', (db) =>
      db
        .updateTable('api_keys')
        .set({ revoked_at: sql`now()` })
        .where('key_hash', '=', ask.keyHash)
        .where('revoked_at', 'is', null)
        .where('bot_id', 'in', admittedBotId)
        .returning('bot_id'),
    )
    .with('first_use_unless_revoked', () => firstUse(ask.keyHash, sql<boolean>`exists (select from revoked)`))
    .with('issued', (db) =>
      db
        .insertInto('api_keys')
        .columns(['bot_id', 'key_hash', 'display_prefix', 'replaces_key_hash'])
        .expression(
          db.selectFrom('revoked').select([
            'revoked.bot_id',
            sql.val(newKey.keyHash).as('key_hash'),
            sql.val(newKey.displayPrefix).as('display_prefix'),
            // Only a rotation with an Idempotency-Key can be replayed.
            sql.val(ask.idempotency ? ask.keyHash : null).as('replaces_key_hash'),
          ]),
        )
        .returning(['api_keys.bot_id', 'api_keys.created_at']),
    )
    .with('recorded', (db) =>
      db
        .insertInto('api_key_events')
        .columns(['bot_id', 'event', 'actor', 'key_prefix'])
        .expression(
          db
            .selectFrom('issued')
            .select([
              'issued.bot_id',
              sql.val('rotated').as('event'),
              sql.val(botActor).as('actor'),
              sql.val(newKey.displayPrefix).as('key_prefix'),
            ]),
        ),
    )
    .with('answer', (db) =>
      db
        .selectFrom('issued')
        .select(['issued.bot_id', 'issued.created_at', sql.val(newKey.sealedKey).as('api_key_sealed')]),
    )
    .with('remembered', () => rememberedAnswer(shape, ask))
    .selectFrom('admitted')
    .leftJoin('answer', (join) => join.onTrue())
    .leftJoin('earlier', (join) => join.onTrue())
    .select(idempotentWriteColumns)
    .select([
      'admitted.admits',
      'answer.created_at as issued_at',
      'earlier.credential_hash as earlier_credential_hash',
    ])

    .executeTakeFirst();
  // Admitted, yet nothing issued: another rotation with the same key committed first, so the key
  // this request was admitted with is revoked now.
  if (row?.admits === true && !row.issued_at) return ask.idempotency ? 'in_use' : lostRotation;
  return {
    admission: admissionAnswer(row),
    earlier: earlierAnswer(row),
    issuedAt: row?.issued_at ?? undefined,
    earlierAskedBy: row?.earlier_credential_hash ?? undefined,
  };
}

/** A rotation that lost the race for its key (see rotateCallersKey): as for an unknown key. */
const lostRotation = {
  admission: undefined,
  earlier: undefined,
  issuedAt: undefined,
  earlierAskedBy: undefined,
};

/** The actor of a rotation a bot made itself, in api_key_events (operators' are their names). */
export const botActor = 'bot';

/** The actor of a rotation a creator made for a bot they claimed. */
export function creatorActor(userId: string): string {
  return `creator:${userId}`;
}

/** The profile fields updateOwnBot may change, as stored. */
export interface ProfileChanges {
  bio?: string | null;
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

/**
 * A new bot with its first API key and the key's `issued` event, in one transaction; undefined when
 * the name is taken (in any case).
 */
export async function insertBotWithKey(
  db: Db,
  bot: NewBot & { keyHash: string; keyPrefix: string },
): Promise<BotRow | undefined> {
  return db.transaction().execute(async (trx) => {
    const row = await insertBot(trx, bot);
    if (!row) return undefined;
    await insertApiKey(trx, { botId: row.id, keyHash: bot.keyHash, displayPrefix: bot.keyPrefix });
    await recordApiKeyEvent(trx, {
      botId: row.id,
      event: 'issued',
      actor: 'registration',
      keyPrefix: bot.keyPrefix,
    });
    return row;
  });
}

async function insertBot(db: Db, bot: NewBot): Promise<BotRow | undefined> {
  return db
    .insertInto('bots')
    .values({
      name: bot.name,
      model: bot.model,
      bio: bot.bio,
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

/** Issues a key; returns when. */
async function insertApiKey(
  db: Db,
  key: { botId: string; keyHash: string; displayPrefix: string },
): Promise<Date> {
  const { created_at } = await db
    .insertInto('api_keys')
    .values({ bot_id: key.botId, key_hash: key.keyHash, display_prefix: key.displayPrefix })
    .returning('created_at')
    .executeTakeFirstOrThrow();
  return created_at;
}

/**
 * Revokes a key found published (secret scanning), whoever's it is, with its event (actor
 * `secret-scanning`); the bot whose key it was, or undefined if no live key has that hash.
 */
export async function revokePublishedKey(db: Db, keyHash: string): Promise<string | undefined> {
  const revoked = await db
    .updateTable('api_keys')
    .set({ revoked_at: sql`now()` })
    .where('key_hash', '=', keyHash)
    .where('revoked_at', 'is', null)
    .returning(['bot_id', 'display_prefix'])
    .executeTakeFirst();
  if (!revoked) return undefined;
  await recordApiKeyEvent(db, {
    botId: revoked.bot_id,
    event: 'revoked',
    actor: 'secret-scanning',
    keyPrefix: revoked.display_prefix,
  });
  return revoked.bot_id;
}

/** Revokes the bot's live key, if any, and returns its display prefix. */
async function revokeLiveApiKey(db: Db, botId: string): Promise<string | undefined> {
  const revoked = await db
    .updateTable('api_keys')
    .set({ revoked_at: sql`now()` })
    .where('bot_id', '=', botId)
    .where('revoked_at', 'is', null)
    .returning('display_prefix')
    .executeTakeFirst();
  return revoked?.display_prefix;
}

async function recordApiKeyEvent(
  db: Db,
  event: { botId: string; event: ApiKeyEvent; actor: string; keyPrefix: string | null },
) {
  await db
    .insertInto('api_key_events')
    .values({ bot_id: event.botId, event: event.event, actor: event.actor, key_prefix: event.keyPrefix })
    .execute();
}

/** A result's rating, from the columns of the assessment that holds it; null until rated. */
export function toAccuracy(
  row: Pick<ProfileExtras, 'accuracy_rating' | 'accuracy_comment' | 'rated_at'>,
): Bot['accuracy'] {
  if (row.accuracy_rating === null || row.rated_at === null) return null;
  return { rating: row.accuracy_rating, comment: row.accuracy_comment, rated_at: row.rated_at.toISOString() };
}

/** A bot's public profile; `publicUrl` makes its page's absolute address. */
export function toBot(row: BotWithCreator, publicUrl: string): Bot {
  return {
    id: row.id,
    name: row.name,
    model: row.model,
    bio: row.bio,
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
    profile_url: botPageUrl(publicUrl, row.name),
    suspended: suspensionOf(row, new Date()) !== undefined,
  };
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
        .set({ deleted_at: sql`now()`, bot_id: null, body: null })
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
