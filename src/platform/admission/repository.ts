// Bot admission's SQL: where a bot's key is looked up, and where a limited write's statement begins
// with its admission (withAdmission): bot_admission(), the database function that checks the key,
// counts the client IP's cap and the bot's own limit (both or neither) and finds the earlier
// answer to the request's Idempotency-Key. The writes that are PL/pgSQL functions (create_post(),
// vote_on_post()) begin with the same function. See README.md in this folder; a bot's level is ./levels.ts.
import { sql, type RawBuilder } from 'kysely';
import type { BotRow, Db } from '../db/schema.js';
import type { BotMode } from '../spec/schemas.js';
import type { AdmissionAnswer, AdmissionAsk, EarlierAnswer } from './bot-admission.js';
import type { CallingKey } from './request-context.js';
import { botStanding, levelArray } from './levels.js';

/** The admitted bot's id, if its request is admitted: the one row a write's statement may change. */
export const admittedBotId = sql<string>`(select admitted.id from admitted where admitted.admits)`;

/**
 * A key's first use, by any request, ends the replay of the rotation that issued it: an update of
 * the key's row only while that replay is open, so nothing at all on every other request. Every
 * lookup of a live key runs it (here, and bot_admission() for every write).
 */
export function firstUse(keyHash: string, unless: RawBuilder<boolean> = sql`false`) {
  // A raw CTE body is not parenthesised for us.
  return sql<Record<string, never>>`(update api_keys set replaces_key_hash = null
    where key_hash = ${keyHash} and replaces_key_hash is not null and revoked_at is null and not (${unless}))`;
}

/**
 * The bot a live key belongs to (not revoked, not expired by `now`, the database's clock when
 * null), with the key's id and scopes. Read on every request: no cache can keep a revoked key alive.
 */
export async function findKeyHolder(
  db: Db,
  keyHash: string,
  now: Date | null = null,
): Promise<{ bot: BotRow; key: CallingKey } | undefined> {
  const row = await db
    .with('first_use', () => firstUse(keyHash))
    .selectFrom('api_keys')
    .innerJoin('bots', 'bots.id', 'api_keys.bot_id')
    .selectAll('bots')
    .select([
      'api_keys.id as key_id',
      'api_keys.scopes as key_scopes',
      'api_keys.expires_at as key_expires_at',
    ])
    .where('api_keys.key_hash', '=', keyHash)
    .where('api_keys.revoked_at', 'is', null)
    .where(liveUntil(now))
    .executeTakeFirst();
  if (!row) return undefined;
  const { key_id, key_scopes, key_expires_at, ...bot } = row;
  return { bot, key: { id: key_id, scopes: key_scopes, expiresAt: key_expires_at } };
}

/** The bot a live key belongs to (findKeyHolder). */
export async function findBotByApiKeyHash(db: Db, keyHash: string): Promise<BotRow | undefined> {
  return (await findKeyHolder(db, keyHash))?.bot;
}

/** A key not expired at `now` (the database's clock when null), as bot_admission() decides it. */
export function liveUntil(now: Date | null) {
  return sql<boolean>`(api_keys.expires_at is null or api_keys.expires_at > coalesce(${now}::timestamptz, now()))`;
}

/** The counts peekedCounts reads, in admissionColumns' names (peekBotAdmission). */
type LimitHits = Omit<AdmissionColumns, 'conversation_with' | 'conversation_current' | 'conversation_ttl_ms'>;
const hitColumns = [
  'hit.ip_current',
  'hit.ip_ttl_ms',
  'hit.own_current',
  'hit.own_ttl_ms',
  'hit.own_max',
  'hit.probation_until',
  'hit.own_level',
  'hit.own_mode',
] as const;

/**
 * The client IP's and the bot's counts as they stand, counting nothing (rate_limit_hit() asked not
 * to record), with the bot's level and its limit as bot_admission() finds them (botStanding); it
 * names the bot's row (bots.id).
 */
function peekedCounts({
  perIp,
  action,
  levels,
  windowMs,
  now,
  probationHours,
  trust,
}: NonNullable<AdmissionAsk['limits']>) {
  return sql`ip.current as ip_current, ip.ttl_ms as ip_ttl_ms, own.current as own_current,
      least(own.ttl_ms, ceil(extract(epoch from standing.probation_until
        - coalesce(${now}::timestamptz, now())) * 1000)::bigint) as own_ttl_ms,
      standing.max as own_max, standing.probation_until, standing.level as own_level, bots.mode as own_mode
    from ${botStanding(levels, probationHours, trust, now)} standing,
      lateral rate_limit_hit(${perIp.key}, ${now}, ${windowMs}, ${perIp.max}, false) ip,
      lateral rate_limit_hit(${action} || ':' || bots.id, ${now}, ${windowMs}, standing.max, false) own`;
}

/** How long after a rotation its replay may be asked for, at most (until the new key's first use). */
export const rotationReplayMinutes = 10;

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
 * A write's statement, begun with its admission, bot_admission() (migration one-bot-admission: the
 * one implementation, which create_post() and vote_on_post() begin with too): `admitted` is the
 * caller's bot (none for an unknown key) with its limits' answers, and the write reads from it only
 * `where admits`; `earlier` is the earlier answer to the request's Idempotency-Key (none without
 * one). A rotation's statement (`by-asking-key`) admits the revoked key that asked for it to replay
 * it while that replay is open, and marks no first use (it revokes the very row).
 */
export function withAdmission(
  db: Db,
  shape: AdmissionShape,
  ask: AdmissionAsk,
  { markFirstUse = true, reply = null }: { markFirstUse?: boolean; reply?: ConversationAsk | null } = {},
) {
  const idempotencyKey = shape.replay ? (ask.idempotency?.key ?? null) : null;
  const replayMinutes = shape.replay === 'by-asking-key' ? rotationReplayMinutes : null;
  // The shape, not the ask, says whether limits count: a statement compiled once per shape is built
  // from stand-ins for the ask's values (compiledPerShape), never from nulls.
  const limitedAsk = shape.limited ? ask : { ...ask, limits: null };
  return db
    .with(
      'admission',
      () =>
        sql<AdmissionRow>`(select * from bot_admission(${admissionArguments(limitedAsk)}, ${idempotencyKey},
          ${replayMinutes}, ${markFirstUse}, ${reply?.postId ?? null}::uuid, ${reply?.parentId ?? null}::uuid,
          ${reply?.max ?? null}::integer))`,
    )
    .with('admitted', (db) =>
      db
        .selectFrom('admission')
        .select([
          'admission.bot_id as id',
          'admission.bot_name as name',
          'admission.bot_model as model',
          'admission.bot_type as type',
          'admission.bot_verified as verified',
          'admission.ip_current',
          'admission.ip_ttl_ms',
          'admission.own_current',
          'admission.own_ttl_ms',
          'admission.own_max',
          'admission.probation_until',
          'admission.own_level',
          'admission.conversation_with',
          'admission.conversation_current',
          'admission.conversation_ttl_ms',
          'admission.bot_mode as own_mode',
          'admission.admits',
        ]),
    )
    .with('earlier', (db) =>
      db
        .selectFrom('admission')
        .select([
          'admission.earlier_request_hash as request_hash',
          'admission.earlier_response as response',
          'admission.earlier_credential_hash as credential_hash',
        ])
        .where('admission.earlier_request_hash', 'is not', null),
    );
}

/**
 * A reply's conversation, counted in its admission (the loop breaker): the post, the comment it
 * answers (null: the post), and how many replies the two bots may exchange there in the window
 * (null: not counted, the benchmark's switch).
 */
export interface ConversationAsk {
  postId: string;
  parentId: string | null;
  max: number | null;
}

/** What bot_admission() answers: one row for a known key, none for an unknown one. */
interface AdmissionRow {
  bot_id: string;
  bot_name: string;
  bot_model: string;
  bot_type: string | null;
  bot_verified: boolean;
  ip_current: number;
  ip_ttl_ms: string;
  own_current: number;
  own_ttl_ms: string;
  admits: boolean;
  /** The limit the bot was counted against: its action's, or its probation's (null when limits are off). */
  own_max: number | null;
  /** When the bot's probation ends; null when it is not on probation. */
  probation_until: Date | string | null;
  /** The trust level whose limit the bot was counted against. */
  own_level: number | null;
  /** A reply's conversation: the bot it answers, and the pair's count and its window's horizon. */
  conversation_with: string | null;
  conversation_current: number | null;
  conversation_ttl_ms: string | null;
  bot_mode: BotMode;
  earlier_request_hash: string | null;
  earlier_response: Record<string, unknown> | null;
  earlier_credential_hash: string | null;
}

/**
 * An admission's ask as bot_admission()'s first arguments, which the write functions that begin
 * with it (create_post(), vote_on_post()) take first too: the key's hash, then the client IP's cap,
 * the action and the bot's limit at each trust level, the clock and the window, the probation's
 * hours and whether trust levels are on, all null when rate limiting is off; then the scope the
 * operation needs of the key (null: any).
 */
export function admissionArguments({ keyHash, limits, scope }: AdmissionAsk) {
  return sql.join([
    keyHash,
    limits?.perIp.key ?? null,
    limits?.perIp.max ?? null,
    limits?.action ?? null,
    levelArray(limits?.levels),
    limits?.now ?? null,
    limits?.windowMs ?? null,
    limits?.probationHours ?? null,
    limits?.trust ?? null,
    scope,
  ]);
}

/**
 * The CTE that remembers a write's answer for its Idempotency-Key, in the write's own statement:
 * `answer`, the statement's CTE of its answer row (with the bot's id), as JSON. A request without a
 * key remembers nothing (an unread CTE that never runs). For a rotation the key that asked is
 * remembered too: only it may replay (bot_admission()'s p_rotation_replay_minutes). Two first
 * requests with one key at once both write, and the second's insert fails on the primary key,
 * taking its write and its hits back (see platform/idempotency/idempotent-write.ts).
 */
export function rememberedAnswer(
  shape: AdmissionShape,
  { keyHash, idempotency }: AdmissionAsk,
  /** Another CTE's row, remembered under this name (a held item: `{ pending_item }`). */
  held?: { cte: string; as: string },
) {
  // A raw CTE body is not parenthesised for us.
  if (!shape.replay || !idempotency) return sql<{ bot_id: string }>`(select)`;
  const credential = shape.replay === 'by-asking-key' ? keyHash : null;
  const source = sql.table(held?.cte ?? 'answer');
  const response = held
    ? sql`jsonb_build_object(${sql.lit(held.as)}, to_jsonb(${source}))`
    : sql`to_jsonb(${source})`;
  return sql<{
    bot_id: string;
  }>`(insert into idempotency_keys (bot_id, key, request_hash, credential_hash, response)
    select ${source}.bot_id, ${idempotency.key}, ${idempotency.requestHash}, ${credential}, ${response} from ${source}
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
export const admissionColumns = [
  'ip_current',
  'ip_ttl_ms',
  'own_current',
  'own_ttl_ms',
  'own_max',
  'probation_until',
  'own_level',
  'conversation_with',
  'conversation_current',
  'conversation_ttl_ms',
  'own_mode',
] as const;

/**
 * What admissionColumns select; create_post() and vote_on_post() answer the first six (a post and
 * a vote are in no conversation).
 */
export interface AdmissionColumns {
  ip_current: number;
  ip_ttl_ms: string;
  own_current: number;
  own_ttl_ms: string;
  own_max: number | null;
  probation_until: Date | string | null;
  own_level?: number | null;
  conversation_with?: string | null;
  conversation_current?: number | null;
  conversation_ttl_ms?: string | null;
  /** The bot's mode (bots.mode), for its limits' headers. */
  own_mode?: BotMode | null;
}

/** Those columns as the admission's answer; undefined (an unknown key) when the statement returned no row. */
export function admissionAnswer(row: AdmissionColumns | undefined): AdmissionAnswer {
  if (!row) return undefined;
  return {
    perIp: { current: row.ip_current, ttl: Number(row.ip_ttl_ms) },
    own: { current: row.own_current, ttl: Number(row.own_ttl_ms) },
    ownMax: row.own_max,
    probationUntil: row.probation_until === null ? null : new Date(row.probation_until),
    trustLevel: row.own_level ?? null,
    mode: row.own_mode ?? null,
    conversation:
      row.conversation_with && row.conversation_current != null
        ? {
            withBotId: row.conversation_with,
            current: row.conversation_current,
            ttl: Number(row.conversation_ttl_ms),
          }
        : null,
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
    return known
      ? {
          perIp: { current: 0, ttl: 0 },
          own: { current: 0, ttl: 0 },
          ownMax: null,
          probationUntil: null,
          trustLevel: null,
          mode: null,
          conversation: null,
        }
      : undefined;
  }
  const row = await bots
    .innerJoinLateral(sql<LimitHits>`(select ${peekedCounts(ask.limits)})`.as('hit'), (join) => join.onTrue())
    .select(hitColumns)
    .executeTakeFirst();
  return admissionAnswer(row);
}
