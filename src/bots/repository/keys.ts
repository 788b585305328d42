// SQL of API keys: issuing, rotating (by the bot, its creator or an operator) and revoking them, one
// live key per bot, each change recorded in api_key_events.
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
import type { AdmissionAsk } from '../../platform/admission/bot-admission.js';
import type { IdempotentWrite } from '../../platform/idempotency/idempotent-write.js';
import { type BotWithCreator, findBot, insertBot, type NewBot } from './bots.js';

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

/** Issues a key; returns when. */
export async function insertApiKey(
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
