// SQL for bots and their API keys. Functions take the database or a transaction first; toBot is
// the one mapping from a row to the API's Bot.
import type { Bot, BotType, Traits } from '../api-types.js';
import { sql, type RawBuilder, type SelectQueryBuilder } from 'kysely';
import { afterKey, creationOrder, type CursorKey, type Keyset } from '../keyset.js';
import { compiledPerShape } from '../db/compiled-queries.js';
import type { ApiKeyEvent, BotRow, Database, Db } from '../db/schema.js';
import { botPageUrl } from '../page-urls.js';
import type { AdmissionAnswer, AdmissionAsk } from '../rate-limit/bot-admission.js';
import { retryingDeadlocks } from '../db/deadlocks.js';
import type { EarlierAnswer } from '../idempotency/idempotent-request.js';
import type { IdempotentWrite } from '../idempotency/idempotent-write.js';

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
const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

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

/** The admitted bot's id, if its request is admitted: the one row a write's statement may change. */
export const admittedBotId = sql<string>`(select admitted.id from admitted where admitted.admits)`;

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

function botsByApiKeyHash(db: Db, keyHash: string) {
  return db
    .selectFrom('api_keys')
    .innerJoin('bots', 'bots.id', 'api_keys.bot_id')
    .selectAll('bots')
    .where('api_keys.key_hash', '=', keyHash)
    .where('api_keys.revoked_at', 'is', null);
}

/**
 * A key's first use, by any request, ends the replay of the rotation that issued it: an update of
 * the key's row only while that replay is open, so nothing at all on every other request. Every
 * lookup of a live key runs it (here, and bot_admission() for the writes that are functions).
 */
function firstUse(keyHash: string, unless: RawBuilder<boolean> = sql`false`) {
  // A raw CTE body is not parenthesised for us.
  return sql<Record<string, never>>`(update api_keys set replaces_key_hash = null
    where key_hash = ${keyHash} and replaces_key_hash is not null and revoked_at is null and not (${unless}))`;
}

/** The bot a live (not revoked) key belongs to. Read on every request: no cache can keep a revoked key alive. */
export async function findBotByApiKeyHash(db: Db, keyHash: string): Promise<BotRow | undefined> {
  return db
    .with('first_use', () => firstUse(keyHash))
    .selectFrom('api_keys')
    .innerJoin('bots', 'bots.id', 'api_keys.bot_id')
    .selectAll('bots')
    .where('api_keys.key_hash', '=', keyHash)
    .where('api_keys.revoked_at', 'is', null)
    .executeTakeFirst();
}

/**
 * A limited bot request's admission as a query, the first part of its write's statement (see
 * src/rate-limit/bot-admission.ts): the bot of a live key (no row for an unknown key, which counts
 * against nothing), and the request counted against its client IP's cap and the bot's own limit
 * (`<action>:<bot id>`) together, both or neither (rate_limit_hit_both(), which takes the client
 * IP's lock first); `admits` says whether both did. A request whose Idempotency-Key has an earlier
 * answer (`earlier`) counts nothing and admits nothing: it reads the limits' counts as they stand,
 * for its headers, and is answered from that earlier answer.
 */
function admissionQuery(db: Db, shape: AdmissionShape, { keyHash, limits }: AdmissionAsk) {
  const bots =
    shape.replay === 'by-asking-key' ? botsByKeyOrItsRotation(db, keyHash) : botsByApiKeyHash(db, keyHash);
  if (!shape.limited || !limits) {
    return bots.select([
      sql<number>`0`.as('ip_current'),
      sql<string>`0`.as('ip_ttl_ms'),
      sql<number>`0`.as('own_current'),
      sql<string>`0`.as('own_ttl_ms'),
      (shape.replay ? sql<boolean>`not exists (select from earlier)` : sql<boolean>`true`).as('admits'),
    ]);
  }
  const { perIp, action, max, windowMs, now } = limits;
  const counted = sql`rate_limit_hit_both(${perIp.key}, ${perIp.max}, ${action} || ':' || bots.id, ${max}, ${now}, ${windowMs})`;
  // Without an earlier answer the first branch counts; with one, only the second runs (each
  // branch's uncorrelated condition is a one-time filter), and counts nothing.
  const hit = shape.replay
    ? sql`(select * from ${counted} where not exists (select from earlier)
        union all
        select ${peekedCounts(limits)} where exists (select from earlier))`
    : counted;
  // It names a column of the bot's row, so it runs once per admitted row.
  return bots
    .innerJoinLateral(sql<LimitHits>`${hit}`.as('hit'), (join) => join.onTrue())
    .select([
      ...hitColumns,
      sql<boolean>`hit.first_current <= ${perIp.max} and hit.second_current <= ${max}${
        shape.replay ? sql` and not exists (select from earlier)` : sql``
      }`.as('admits'),
    ]);
}

/** What rate_limit_hit_both() answers (the lateral `hit`), and its columns as admissionColumns names them. */
type LimitHits = {
  first_current: number;
  first_ttl_ms: string;
  second_current: number;
  second_ttl_ms: string;
};
const hitColumns = [
  'hit.first_current as ip_current',
  'hit.first_ttl_ms as ip_ttl_ms',
  'hit.second_current as own_current',
  'hit.second_ttl_ms as own_ttl_ms',
] as const;

/**
 * The client IP's and the bot's counts as they stand, counting nothing (rate_limit_hit() asked not
 * to record), in rate_limit_hit_both()'s columns; it names the bot's row (bots.id).
 */
function peekedCounts({ perIp, action, max, windowMs, now }: NonNullable<AdmissionAsk['limits']>) {
  return sql`ip.current as first_current, ip.ttl_ms as first_ttl_ms,
      own.current as second_current, own.ttl_ms as second_ttl_ms
    from rate_limit_hit(${perIp.key}, ${now}, ${windowMs}, ${perIp.max}, false) ip,
      rate_limit_hit(${action} || ':' || bots.id, ${now}, ${windowMs}, ${max}, false) own`;
}

/**
 * The bot of a live key, or of the revoked key a rotation was asked with when this request replays
 * that rotation (its Idempotency-Key's earlier answer names the key): the one thing a rotated key
 * may still do, and only while the key that rotation issued is live, has not been used, and is
 * less than `rotationReplayMinutes` old. After that the old key is as any retired key: a 401.
 */
function botsByKeyOrItsRotation(db: Db, keyHash: string) {
  return db
    .selectFrom('api_keys')
    .innerJoin('bots', 'bots.id', 'api_keys.bot_id')
    .selectAll('bots')
    .where('api_keys.key_hash', '=', keyHash)
    .where((eb) =>
      eb.or([
        eb('api_keys.revoked_at', 'is', null),
        sql<boolean>`exists (select from earlier where earlier.credential_hash = ${keyHash})
          and exists (
            select from api_keys issued
            where issued.bot_id = api_keys.bot_id and issued.revoked_at is null
              and issued.replaces_key_hash = ${keyHash}
              and issued.created_at > now() - make_interval(mins => ${rotationReplayMinutes}))`,
      ]),
    );
}

/** How long after a rotation its replay may be asked for, at most (until the new key's first use). */
export const rotationReplayMinutes = 10;

/**
 * The earlier answer to the request's Idempotency-Key, when the bot (the key's, live or revoked)
 * has one; none for a request without a key, or of a statement that takes none.
 */
function earlierAnswerQuery(db: Db, shape: AdmissionShape, { keyHash, idempotency }: AdmissionAsk) {
  const query = db
    .selectFrom('idempotency_keys')
    .select([
      'idempotency_keys.request_hash',
      'idempotency_keys.response',
      'idempotency_keys.credential_hash',
    ]);
  if (!shape.replay || !idempotency) return query.where(sql<boolean>`false`);
  return query
    .where(
      'idempotency_keys.bot_id',
      '=',
      db.selectFrom('api_keys').select('api_keys.bot_id').where('api_keys.key_hash', '=', keyHash),
    )
    .where('idempotency_keys.key', '=', idempotency.key);
}

/**
 * What changes an admission's SQL text (see compiledPerShape): whether limits are counted at all,
 * and whether the request has an Idempotency-Key, so that an earlier answer is looked for (by the
 * bot's live key, or also by the revoked key a rotation was asked with).
 */
export interface AdmissionShape {
  limited: boolean;
  replay: false | 'by-live-key' | 'by-asking-key';
}

export function admissionShape(
  ask: AdmissionAsk,
  replayBy: 'live-key' | 'asking-key' = 'live-key',
): AdmissionShape {
  return {
    limited: ask.limits !== null,
    replay: ask.idempotency === null ? false : replayBy === 'live-key' ? 'by-live-key' : 'by-asking-key',
  };
}

/**
 * A write's statement, begun with its admission: `earlier` is the earlier answer to the request's
 * Idempotency-Key (none without one), `admitted` is the caller's bot row (none for an unknown key)
 * with its limits' answers, and the write reads from it only `where admits`.
 */
export function withAdmission(
  db: Db,
  shape: AdmissionShape,
  ask: AdmissionAsk,
  { markFirstUse = true }: { markFirstUse?: boolean } = {},
) {
  return db
    .with('first_use', () => (markFirstUse ? firstUse(ask.keyHash) : sql<Record<string, never>>`(select)`))
    .with('earlier', () => earlierAnswerQuery(db, shape, ask))
    .with('admitted', () => admissionQuery(db, shape, ask));
}

/**
 * An admission's ask as the first arguments of the write functions that begin with
 * bot_admission() (create_post(), vote_on_post(): migration write-functions), which do in the
 * database what withAdmission's statement does: the key's hash, then the client IP's cap, the
 * action and the bot's limit, the clock and the window, all null when rate limiting is off.
 */
export function admissionArguments({ keyHash, limits }: AdmissionAsk) {
  return sql.join([
    keyHash,
    limits?.perIp.key ?? null,
    limits?.perIp.max ?? null,
    limits?.action ?? null,
    limits?.max ?? null,
    limits?.now ?? null,
    limits?.windowMs ?? null,
  ]);
}

/**
 * The CTE that remembers a write's answer for its Idempotency-Key, in the write's own statement:
 * `answer`, the statement's CTE of its answer row (with the bot's id), as JSON. A request without a
 * key remembers nothing (an unread CTE that never runs). For a rotation the key that asked is
 * remembered too: only it may replay (see botsByKeyOrItsRotation). Two first requests with one key
 * at once both write, and the second's insert fails on the primary key, taking its write and its
 * hits back (see idempotency/idempotent-write.ts).
 */
export function rememberedAnswer(shape: AdmissionShape, { keyHash, idempotency }: AdmissionAsk) {
  // A raw CTE body is not parenthesised for us.
  if (!shape.replay || !idempotency) return sql<{ bot_id: string }>`(select)`;
  const credential = shape.replay === 'by-asking-key' ? keyHash : null;
  return sql<{
    bot_id: string;
  }>`(insert into idempotency_keys (bot_id, key, request_hash, credential_hash, response)
    select answer.bot_id, ${idempotency.key}, ${idempotency.requestHash}, ${credential}, to_jsonb(answer) from answer
    returning bot_id)`;
}

/** The columns a write's statement selects from `earlier` for earlierAnswer. */
const earlierColumns = [
  'earlier.request_hash as earlier_request_hash',
  'earlier.response as earlier_response',
] as const;

/** Those columns as the earlier answer to the request's Idempotency-Key, if there is one. */
export function earlierAnswer(
  row: { earlier_request_hash: string | null; earlier_response: Record<string, unknown> | null } | undefined,
): EarlierAnswer | undefined {
  if (!row?.earlier_request_hash || !row.earlier_response) return undefined;
  return { requestHash: row.earlier_request_hash, response: row.earlier_response };
}

/**
 * The columns a write's statement selects from `admitted` for admissionAnswer (unqualified: no
 * table a write joins has columns of these names).
 */
export const admissionColumns = ['ip_current', 'ip_ttl_ms', 'own_current', 'own_ttl_ms'] as const;

/** Those columns as the admission's answer; undefined (an unknown key) when the statement returned no row. */
export function admissionAnswer(
  row: { ip_current: number; ip_ttl_ms: string; own_current: number; own_ttl_ms: string } | undefined,
): AdmissionAnswer {
  if (!row) return undefined;
  return {
    perIp: { current: row.ip_current, ttl: Number(row.ip_ttl_ms) },
    own: { current: row.own_current, ttl: Number(row.own_ttl_ms) },
  };
}

/**
 * Writes are durable; a statement that admitted nothing wrote only its hits, and does not wait for
 * their WAL flush (as admitBotByApiKeyHash explains).
 */
export const durableOnlyIfAdmitted = sql<string | null>`case when not admits
  then set_config('synchronous_commit', 'off', true) end`.as('asynchronous_commit');

/**
 * What an idempotent write's statement answers besides its row (from `admitted` joined with
 * `earlier`): its admission (admissionAnswer), its commit's durability, the earlier answer to its
 * key (earlierAnswer).
 */
export const idempotentWriteColumns = [
  ...admissionColumns,
  durableOnlyIfAdmitted,
  ...earlierColumns,
] as const;

/**
 * The admission on its own, for a request that failed before its write (see BotAdmission.settleAlone).
 */
export async function admitBotByApiKeyHash(db: Db, ask: AdmissionAsk): Promise<AdmissionAnswer> {
  const row = await withAdmission(db, admissionShape(ask), ask)
    .selectFrom('admitted')
    .select(admissionColumns)
    // The commit does not wait for its WAL flush, which it would do holding the client IP's lock,
    // so that every request from that address queued behind a disk write. Nothing acknowledged is
    // lost: a crash can forget only hits of the last moment whose request wrote nothing.
    .select(sql<string>`set_config('synchronous_commit', 'off', true)`.as('asynchronous_commit'))
    .executeTakeFirst();
  return admissionAnswer(row);
}

/**
 * The admission's answer with nothing counted, the limits' counts as they stand, for a request
 * whose write's statement found its key live and then failed, taking its hits back (see
 * BotAdmission.settleUncounted): so the key's bot is found live or revoked, for the request may
 * have been a rotation that another one with its key completed.
 */
export async function peekBotAdmission(db: Db, ask: AdmissionAsk): Promise<AdmissionAnswer> {
  const bots = db
    .with('first_use', () => firstUse(ask.keyHash))
    .selectFrom('api_keys')
    .innerJoin('bots', 'bots.id', 'api_keys.bot_id')
    .where('api_keys.key_hash', '=', ask.keyHash);
  if (!ask.limits) {
    const known = await bots.select('bots.id').executeTakeFirst();
    return known ? { perIp: { current: 0, ttl: 0 }, own: { current: 0, ttl: 0 } } : undefined;
  }
  const row = await bots
    .innerJoinLateral(sql<LimitHits>`(select ${peekedCounts(ask.limits)})`.as('hit'), (join) => join.onTrue())
    .select(hitColumns)
    .executeTakeFirst();
  return admissionAnswer(row);
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
