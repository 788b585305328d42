// A bot's keys beside the one it registered with: createApiKey, listApiKeys and revokeApiKey (the
// bot's own), listClaimedBotKeys and revokeClaimedBotKey (its creator's, on /me too). What a key may
// call is its scopes (src/platform/admission/scopes.ts); the SQL is ./repository/keys.ts.
import type { Clock } from '../platform/db/clock.js';
import type { BotRow, Db } from '../platform/db/schema.js';
import type { BotAdmission } from '../platform/admission/bot-admission.js';
import { displayPrefix, generateApiKey, hashSecret } from '../platform/admission/secrets.js';
import { notFound, ProblemError, validationFailed } from '../platform/spec/problems.js';
import type { ApiKeyScope, ApiKeySummary, IssuedApiKey } from '../platform/spec/schemas.js';
import { findBot } from './repository/bots.js';
import {
  botActor,
  creatorActor,
  issueApiKey,
  listLiveApiKeys,
  liveKeysPerBot,
  revokeApiKeyOfBot,
  type ApiKeyRow,
} from './repository/keys.js';

/** How far ahead a key's expiry may be. */
const longestExpiryDays = 366;

function summaryOf(row: ApiKeyRow, callingKeyId: string | null): ApiKeySummary {
  return {
    id: row.id,
    name: row.name,
    scopes: row.scopes,
    prefix: row.display_prefix,
    created_at: row.created_at.toISOString(),
    expires_at: row.expires_at?.toISOString() ?? null,
    current: row.id === callingKeyId,
  };
}

/**
 * createApiKey: one more key for the calling bot, counted with its key rotations (its admission,
 * which also refuses a key without `manage`), at most liveKeysPerBot live at once.
 */
export async function createApiKey(
  db: Db,
  clock: Clock | undefined,
  admission: BotAdmission,
  request: { name: string; scopes: ApiKeyScope[]; expires_at?: string | null | undefined },
): Promise<IssuedApiKey> {
  const now = clock?.() ?? new Date();
  const expiresAt = request.expires_at ? new Date(request.expires_at) : null;
  if (expiresAt && expiresAt <= now)
    throw validationFailed([
      {
        in: 'body',
        pointer: '/expires_at',
        message: 'must be in the future, or null for a key that never expires',
      },
    ]);
  if (expiresAt && expiresAt.getTime() - now.getTime() > longestExpiryDays * 86_400_000)
    throw validationFailed([
      { in: 'body', pointer: '/expires_at', message: `must be at most ${longestExpiryDays} days ahead` },
    ]);
  const bot = await admission.settleAndIdentify();
  const apiKey = generateApiKey();
  const issued = await issueApiKey(
    db,
    bot.id,
    {
      keyHash: hashSecret(apiKey),
      displayPrefix: displayPrefix(apiKey),
      name: request.name,
      scopes: request.scopes,
      expiresAt,
    },
    botActor,
    clock?.() ?? null,
  );
  if (issued === 'too_many')
    throw new ProblemError(
      409,
      'too_many_keys',
      `This bot holds ${liveKeysPerBot} live keys, the most it may. Revoke one (listApiKeys lists them, ` +
        'revokeApiKey revokes one), then issue this one again.',
    );
  // The bot deleted itself meanwhile: its key is as unknown as any.
  if (!issued) throw notFound('The bot this key belonged to no longer exists.');
  const { current: _, ...fields } = summaryOf(issued, null);
  return { ...fields, api_key: apiKey };
}

/** listApiKeys: the calling bot's live keys, the one it called with marked `current`. */
export async function listApiKeys(
  db: Db,
  clock: Clock | undefined,
  bot: BotRow,
  callingKeyId: string,
): Promise<{ keys: ApiKeySummary[] }> {
  const rows = await listLiveApiKeys(db, [bot.id], clock?.() ?? null);
  return { keys: rows.map((row) => summaryOf(row, callingKeyId)) };
}

const noSuchKey = (keyId: string) =>
  notFound(`This bot has no live key with the id ${keyId} (listApiKeys lists the ones it has).`);

/** revokeApiKey: one of the calling bot's live keys, never its last. */
export async function revokeApiKey(
  db: Db,
  clock: Clock | undefined,
  bot: BotRow,
  keyId: string,
): Promise<void> {
  const outcome = await revokeApiKeyOfBot(db, bot.id, keyId, {
    actor: botActor,
    keepLast: true,
    now: clock?.() ?? null,
  });
  if (outcome === 'not_found') throw noSuchKey(keyId);
  if (outcome === 'last_key')
    throw new ProblemError(
      409,
      'last_key',
      'This is the bot’s only live key: revoking it would lock the bot out. rotateOwnKey replaces it ' +
        'with a new one; deleteOwnBot retires the bot.',
    );
}

/** The bot a creator claimed, by id or name; any other is a 404, whether it exists or not. */
export async function claimedBot(db: Db, userId: string, reference: string): Promise<BotRow> {
  const bot = await findBot(db, reference);
  if (!bot || bot.creator_user_id !== userId)
    throw notFound(`You have not claimed a bot with the id or name ${reference}.`);
  return bot;
}

/** listClaimedBotKeys: the live keys of a bot the creator claimed. */
export async function listClaimedBotKeys(
  db: Db,
  clock: Clock | undefined,
  userId: string,
  reference: string,
): Promise<{ keys: ApiKeySummary[] }> {
  const bot = await claimedBot(db, userId, reference);
  const rows = await listLiveApiKeys(db, [bot.id], clock?.() ?? null);
  return { keys: rows.map((row) => summaryOf(row, null)) };
}

/** The live keys of each of some bots (the creator's, on /me), by bot id. */
export async function liveKeysOfBots(
  db: Db,
  clock: Clock | undefined,
  botIds: string[],
): Promise<Map<string, ApiKeySummary[]>> {
  const keys = new Map<string, ApiKeySummary[]>();
  for (const row of await listLiveApiKeys(db, botIds, clock?.() ?? null)) {
    keys.set(row.bot_id, [...(keys.get(row.bot_id) ?? []), summaryOf(row, null)]);
  }
  return keys;
}

/** revokeClaimedBotKey: any live key of a bot the creator claimed, its last included. */
export async function revokeClaimedBotKey(
  db: Db,
  clock: Clock | undefined,
  userId: string,
  reference: string,
  keyId: string,
): Promise<void> {
  const bot = await claimedBot(db, userId, reference);
  const outcome = await revokeApiKeyOfBot(db, bot.id, keyId, {
    actor: creatorActor(userId),
    keepLast: false,
    now: clock?.() ?? null,
  });
  if (outcome !== 'revoked') throw noSuchKey(keyId);
}
