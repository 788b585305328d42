// SQL of API keys: issuing, rotating (by the bot, its creator or an operator) and revoking them, at
// most 5 live keys per bot (counted under the bot's row lock), each change recorded in api_key_events.
import { sql } from 'kysely';
import {
  admissionAnswer,
  admissionShape,
  admittedBotId,
  earlierAnswer,
  firstUse,
  idempotentWriteColumns,
  rememberedAnswer,
  withAdmission,
} from '../../platform/admission/repository.js';
import type { ApiKeyEvent, BotRow, Db } from '../../platform/db/schema.js';
import { liveUntil } from '../../platform/admission/repository.js';
import type { ApiKeyScope } from '../../platform/spec/schemas.js';
import type { AdmissionAsk } from '../../platform/admission/bot-admission.js';
import type { IdempotentWrite } from '../../platform/idempotency/idempotent-write.js';
import { type BotWithCreator, findBot, insertBot, type NewBot } from './bots.js';

/**
 * Revokes every live key of a bot and, given a new one, issues it with every scope, named
 * `recovery` (`rotated`; each other key revoked with it is `revoked`); without one, records each
 * revocation (`revoked`). How a creator or an operator takes a bot back from whoever holds its
 * keys. The bot row is locked first, so concurrent commands on one bot queue. Undefined for an
 * unknown bot.
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
    const revokedPrefixes = await revokeLiveApiKeys(trx, bot.id);
    // With a new key, the oldest revoked is the one it replaces (`rotated`).
    for (const keyPrefix of newKey ? revokedPrefixes.slice(1) : revokedPrefixes)
      await recordApiKeyEvent(trx, { botId: bot.id, event: 'revoked', actor, keyPrefix });
    let issuedAt: Date | undefined;
    if (newKey) {
      issuedAt = await insertApiKey(trx, { botId: bot.id, ...newKey, name: 'recovery' });
      await recordApiKeyEvent(trx, {
        botId: bot.id,
        event: 'rotated',
        actor,
        keyPrefix: newKey.displayPrefix,
      });
    }
    return { bot, revokedPrefix: revokedPrefixes[0], issuedAt };
  });
}

/**
 * rotateOwnKey's one statement (see withAdmission): the caller's admission, then, if it admits, the
 * key that called revoked, a new one issued with its name, scopes and expiry, and the rotation
 * recorded with the bot as its actor. The new key is inserted from the revoked row, so the bot's
 * count of live keys never grows, and a second rotation racing with the same key
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
        .returning(['bot_id', 'name', 'scopes', 'expires_at']),
    )
    .with('first_use_unless_revoked', () => firstUse(ask.keyHash, sql<boolean>`exists (select from revoked)`))
    .with('issued', (db) =>
      db
        .insertInto('api_keys')
        .columns([
          'bot_id',
          'key_hash',
          'display_prefix',
          'replaces_key_hash',
          'name',
          'scopes',
          'expires_at',
        ])
        .expression(
          db.selectFrom('revoked').select([
            'revoked.bot_id',
            sql.val(newKey.keyHash).as('key_hash'),
            sql.val(newKey.displayPrefix).as('display_prefix'),
            // Only a rotation with an Idempotency-Key can be replayed.
            sql.val(ask.idempotency ? ask.keyHash : null).as('replaces_key_hash'),
            'revoked.name',
            'revoked.scopes',
            'revoked.expires_at',
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

/** Issues a key (by default named `registration`, with every scope, never expiring); returns when. */
export async function insertApiKey(
  db: Db,
  key: { botId: string; keyHash: string; displayPrefix: string; name?: string },
): Promise<Date> {
  const { created_at } = await db
    .insertInto('api_keys')
    .values({
      bot_id: key.botId,
      key_hash: key.keyHash,
      display_prefix: key.displayPrefix,
      ...(key.name ? { name: key.name } : {}),
    })
    .returning('created_at')
    .executeTakeFirstOrThrow();
  return created_at;
}

/** The most live keys a bot may hold (createApiKey's 409 `too_many_keys`). */
export const liveKeysPerBot = 5;

/** A key as listed: everything but the key itself. */
export interface ApiKeyRow {
  id: string;
  bot_id: string;
  name: string;
  scopes: ApiKeyScope[];
  display_prefix: string;
  created_at: Date;
  expires_at: Date | null;
}

const listedColumns = [
  'id',
  'bot_id',
  'name',
  'scopes',
  'display_prefix',
  'created_at',
  'expires_at',
] as const;

/** The bot's row, locked: a transaction's commands on one bot's keys queue behind each other. */
async function lockBot(trx: Db, botId: string): Promise<boolean> {
  const row = await trx
    .selectFrom('bots')
    .select('id')
    .where('id', '=', botId)
    .forUpdate()
    .executeTakeFirst();
  return row !== undefined;
}

/** The live keys (not revoked, not expired at `now`; null: the database's clock) of some bots, oldest first. */
export async function listLiveApiKeys(db: Db, botIds: string[], now: Date | null): Promise<ApiKeyRow[]> {
  if (botIds.length === 0) return [];
  return db
    .selectFrom('api_keys')
    .select(listedColumns)
    .where('bot_id', 'in', botIds)
    .where('revoked_at', 'is', null)
    .where(liveUntil(now))
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

/**
 * createApiKey's write: one more key for the bot, with its `issued` event, unless it holds
 * liveKeysPerBot live keys already (counted under the bot's row lock, so that concurrent issues
 * cannot pass the count together). Undefined for a bot deleted meanwhile.
 */
export async function issueApiKey(
  db: Db,
  botId: string,
  key: {
    keyHash: string;
    displayPrefix: string;
    name: string;
    scopes: ApiKeyScope[];
    expiresAt: Date | null;
  },
  actor: string,
  now: Date | null,
): Promise<ApiKeyRow | 'too_many' | undefined> {
  return db.transaction().execute(async (trx) => {
    if (!(await lockBot(trx, botId))) return undefined;
    const live = await listLiveApiKeys(trx, [botId], now);
    if (live.length >= liveKeysPerBot) return 'too_many';
    const row = await trx
      .insertInto('api_keys')
      .values({
        bot_id: botId,
        key_hash: key.keyHash,
        display_prefix: key.displayPrefix,
        name: key.name,
        scopes: key.scopes,
        expires_at: key.expiresAt,
      })
      .returning(listedColumns)
      .executeTakeFirstOrThrow();
    await recordApiKeyEvent(trx, { botId, event: 'issued', actor, keyPrefix: key.displayPrefix });
    return row;
  });
}

/**
 * revokeApiKey's and revokeClaimedBotKey's write: one live key of the bot revoked, with its
 * `revoked` event, under the bot's row lock. `not_found` for a key that is not the bot's live key;
 * `last_key` when it is the bot's only live key and `keepLast` (a bot may not lock itself out).
 */
export async function revokeApiKeyOfBot(
  db: Db,
  botId: string,
  keyId: string,
  { actor, keepLast, now }: { actor: string; keepLast: boolean; now: Date | null },
): Promise<'revoked' | 'not_found' | 'last_key'> {
  return db.transaction().execute(async (trx) => {
    if (!(await lockBot(trx, botId))) return 'not_found';
    const live = await listLiveApiKeys(trx, [botId], now);
    const key = live.find((candidate) => candidate.id === keyId);
    if (!key) return 'not_found';
    if (keepLast && live.length === 1) return 'last_key';
    await trx
      .updateTable('api_keys')
      .set({ revoked_at: sql`now()` })
      .where('id', '=', keyId)
      .execute();
    await recordApiKeyEvent(trx, { botId, event: 'revoked', actor, keyPrefix: key.display_prefix });
    return 'revoked';
  });
}

/** Whether two key hashes are keys of one bot, the first of them live (a key a bot wrote is its own). */
export async function sameBotsKeys(db: Db, keyHash: string, otherKeyHash: string): Promise<boolean> {
  const row = await db
    .selectFrom('api_keys as found')
    .innerJoin('api_keys as writer', 'writer.bot_id', 'found.bot_id')
    .select('found.bot_id')
    .where('found.key_hash', '=', keyHash)
    .where('found.revoked_at', 'is', null)
    .where('writer.key_hash', '=', otherKeyHash)
    .executeTakeFirst();
  return row !== undefined;
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

/** Revokes every live key of the bot; their display prefixes, oldest first. */
async function revokeLiveApiKeys(db: Db, botId: string): Promise<string[]> {
  const revoked = await db
    .updateTable('api_keys')
    .set({ revoked_at: sql`now()` })
    .where('bot_id', '=', botId)
    .where('revoked_at', 'is', null)
    .returning(['display_prefix', 'created_at'])
    .execute();
  return revoked
    .sort((a, b) => a.created_at.getTime() - b.created_at.getTime())
    .map((key) => key.display_prefix);
}

export async function recordApiKeyEvent(
  db: Db,
  event: { botId: string; event: ApiKeyEvent; actor: string; keyPrefix: string | null },
) {
  await db
    .insertInto('api_key_events')
    .values({ bot_id: event.botId, event: event.event, actor: event.actor, key_prefix: event.keyPrefix })
    .execute();
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
