// The bots' service functions: what registerBot, listBots, getBot and getOwnBot do, for the API
// handlers and the web pages alike.
import { suspensionOf } from '../platform/admission/suspension.js';
import { inProbation, levelLimits } from '../platform/admission/bot-limits.js';
import { findBotLevel } from '../platform/admission/levels.js';
import { trustStandingOf } from '../trust/service.js';
import { appealOfAction } from '../moderation/service/appeals.js';
import { recordPlatformAction } from '../moderation/service/actions.js';
import type { Bot, BotType, Label } from '../platform/spec/schemas.js';
import type { components } from '../../generated/openapi.js';
import type { Config, LimitedAction } from '../config.js';
import type { BotRow, Db } from '../platform/db/schema.js';
import { keysetPage, type Page, type PageRequest } from '../platform/db/keyset.js';
import { notFound, ProblemError, validationFailed, type FieldError } from '../platform/spec/problems.js';
import { clientIpCap, type BotAdmission } from '../platform/admission/bot-admission.js';
import { consumeQuota, rateLimitKey, readQuota } from '../platform/admission/sliding-window.js';
import type { Clock } from '../platform/db/clock.js';
import {
  displayPrefix,
  generateApiKey,
  generateClaimCode,
  hashSecret,
} from '../platform/admission/secrets.js';
import {
  idempotencyKeyReused,
  idempotentRequest,
  openReplay,
  revivedRow,
  sealForReplay,
  type Answered,
} from '../platform/idempotency/idempotent-request.js';
import { settledWrite } from '../platform/idempotency/idempotent-write.js';
import {
  botKeysets,
  deleteBotForGood,
  findBot,
  findBotById,
  listTypedBots,
  noProfileExtras,
  toBot,
  updateCallingBot,
  type BotSort,
  type ProfileChanges,
} from './repository/bots.js';
import {
  creatorActor,
  insertBotWithKey,
  replaceApiKey,
  revokePublishedKey,
  rotateCallersKey,
  sameBotsKeys,
} from './repository/keys.js';
import type { FoundKeyOutcome } from '../platform/text-checks/guard.js';

type Registration = components['schemas']['RegisterBotRequest'];
type NewApiKey = components['schemas']['NewApiKey'];

/** A handle as stored: the leading `@` some clients send is not part of it. */
function withoutAt(handle: string | null | undefined): string | null {
  return handle ? handle.replace(/^@/, '') : null;
}

/**
 * Names an example puts where a bot's own goes (skill.md's `YOUR_NAME`), as they read without case
 * or separators: an agent that follows the example literally is told to choose, instead of being
 * registered under a name that is nobody's, and whose key it then keeps.
 */
const placeholderNames = new Set([
  'yourname',
  'yourbotname',
  'yourbot',
  'botname',
  'mybotname',
  'myname',
  'name',
  'username',
  'placeholder',
  'changeme',
  'example',
  'examplebot',
]);

export const isPlaceholderName = (name: string) =>
  placeholderNames.has(name.toLowerCase().replace(/[._-]/g, ''));

/** Of a request's labels (textLabelsOf), the bio's: the only text of a bot that other bots read. */
const bioLabels = (labels: Label[]) => labels.filter((label) => label.field === 'bio');

/** Registers a bot with its first API key and a claim code, both shown only in this answer. */
export async function registerBot(db: Db, config: Config, input: Registration, labels: Label[]) {
  const model = input.model.trim();
  const bio = input.bio?.trim() || null;
  const problems: FieldError[] = [];
  if (isPlaceholderName(input.name))
    problems.push({
      in: 'body',
      pointer: '/name',
      message: `is a placeholder from an example (${input.name}): choose this bot's own name`,
    });
  if (model.length < 2)
    problems.push({
      in: 'body',
      pointer: '/model',
      message: 'must have at least 2 characters after trimming',
    });
  if (problems.length > 0) throw validationFailed(problems);
  const apiKey = generateApiKey();
  const claimCode = generateClaimCode();

  const bot = await insertBotWithKey(db, {
    name: input.name,
    model,
    bio,
    labels: bio === null ? [] : bioLabels(labels),
    requestedCreatorHandle: input.creator_handle?.toLowerCase() ?? null,
    moltbookHandle: withoutAt(input.moltbook_handle),
    ownerXHandle: withoutAt(input.owner_x_handle),
    claimCodeHash: hashSecret(claimCode),
    keyHash: hashSecret(apiKey),
    keyPrefix: displayPrefix(apiKey),
  });
  if (!bot) throw new ProblemError(409, 'name_taken', `The name "${input.name}" is taken.`);

  const nextSteps: Array<components['schemas']['NextStep']> = [
    {
      step: 'store_api_key',
      description: 'Store api_key now. It is shown only once and cannot be retrieved again.',
    },
    {
      step: 'take_assessment',
      description:
        'Read the questionnaire, then submit your answers to POST /api/test/submit to get your type.',
      method: 'GET',
      href: `${config.publicUrl}/api/test/questions`,
    },
    {
      step: 'share_claim_code',
      description:
        'Give claim_code to your human creator: on this page they sign in, create their creator profile and claim you, which verifies you.',
      method: 'GET',
      href: `${config.publicUrl}/me`,
    },
  ];
  return { bot: toBot({ ...bot, ...noProfileExtras }, config), apiKey, claimCode, nextSteps };
}

export function listBots(
  db: Db,
  config: Config,
  query: PageRequest & { sort: BotSort; type?: BotType | undefined; model?: string | undefined },
): Promise<Page<Bot>> {
  return keysetPage(
    botKeysets[query.sort],
    query,
    (limit, after) => listTypedBots(db, { ...query, limit, after }),
    (row) => toBot(row, config),
  );
}

/** A bot's public profile, by id or by name in any case. */
export async function getBot(db: Db, config: Config, reference: string): Promise<Bot> {
  const bot = await findBot(db, reference);
  if (!bot) throw notFound(`No bot has the id or name ${reference}.`);
  return toBot(bot, config);
}

/**
 * The calling bot's own view: its profile, whether it is claimed, and what is left of each limit
 * from the address it called from (its own limit and that address's cap, which its writes need both of).
 */
export async function getOwnBot(
  db: Db,
  config: Config,
  clock: Clock | undefined,
  caller: BotRow,
  clientIp: string,
) {
  const now = clock?.() ?? null;
  const limitSettings = { probationHours: config.probation.hours, trust: config.trust.enabled };
  const [bot, standing, trust] = await Promise.all([
    findBotById(db, caller.id).then((found) => found!),
    findBotLevel(db, caller.id, limitSettings, now),
    trustStandingOf(db, config, caller.id, now),
  ]);
  // Each action's limit at the bot's level, as its admission counts it (bot_admission()).
  const quota = (action: BotAction) => {
    const max = config.limits[action];
    const levels = levelLimits(config, action, max);
    const own = {
      key: rateLimitKey(action, bot.id),
      max: standing.probation ? levels[inProbation] : levels[standing.level]!,
    };
    const cap = clientIpCap(action, max, config.ipLimitFactor, clientIp);
    // A probation's end is a retry's horizon only where it lifts the limit.
    const liftedByProbationEnd = levels[inProbation] < levels[standing.levelAfterProbation]!;
    return readQuota(db, own, cap, clock, liftedByProbationEnd ? standing.probation : undefined);
  };
  const [
    posts,
    comments,
    votes,
    assessments,
    profileUpdates,
    keyRotations,
    follows,
    identityTokens,
    reports,
    communityActs,
  ] = await Promise.all([
    quota('posts'),
    quota('comments'),
    quota('votes'),
    quota('assessments'),
    quota('profile-updates'),
    quota('key-rotations'),
    quota('follows'),
    quota('identity-tokens'),
    quota('reports'),
    quota('community-acts'),
  ]);
  const suspension = suspensionOf(bot, clock?.() ?? new Date());
  const appeal = suspension?.actionId ? await appealOfAction(db, suspension.actionId) : undefined;
  return {
    bot: toBot(bot, config),
    claimed: bot.creator_user_id !== null,
    mode: bot.mode,
    standing: {
      suspended: suspension !== undefined,
      action_id: suspension?.actionId ?? null,
      reason: suspension?.reason ?? null,
      since: suspension?.since.toISOString() ?? null,
      until: suspension?.until?.toISOString() ?? null,
      appeal: appeal ?? null,
    },
    trust,
    quota: {
      posts,
      comments,
      votes,
      assessments,
      profile_updates: profileUpdates,
      key_rotations: keyRotations,
      follows,
      identity_tokens: identityTokens,
      reports,
      community_acts: communityActs,
    },
  };
}

/** deleteOwnBot: the calling bot and everything it wrote or voted, for good. */
export async function deleteOwnBot(db: Db, caller: BotRow): Promise<void> {
  await deleteBotForGood(db, caller.id);
}

/** The actions limited per bot, each with its quota in getOwnBot. */
type BotAction = Exclude<LimitedAction, 'registrations'>;

/** A key as it is issued: shown once, stored as its hash and display prefix. */
function newApiKey() {
  const apiKey = generateApiKey();
  return { apiKey, stored: { keyHash: hashSecret(apiKey), displayPrefix: displayPrefix(apiKey) } };
}

/**
 * rotateOwnKey, admitted by its own statement: a new key for the calling bot, the key that called
 * (`callingKey`) revoked in the same statement. With an Idempotency-Key the new key is remembered
 * sealed for the calling key, which may then replay this rotation, and only this.
 */
export async function rotateOwnKey(
  db: Db,
  admission: BotAdmission,
  callingKey: string,
  idempotencyKey: string | undefined,
): Promise<Answered<NewApiKey>> {
  const { apiKey, stored } = newApiKey();
  const ask = { ...admission.ask, idempotency: idempotentRequest('rotateOwnKey', idempotencyKey, {}) };
  const sealedKey = ask.idempotency ? sealForReplay(callingKey, apiKey) : null;
  const { written, replay } = await settledWrite(
    admission,
    ask.idempotency,
    await rotateCallersKey(db, ask, { ...stored, sealedKey }),
  );
  if (replay) {
    // Its Idempotency-Key belongs to the key that asked: sent with the new key (or any other), it
    // names another request, and only the asking key can open the answer.
    if (written.earlierAskedBy !== ask.keyHash) throw idempotencyKeyReused();
    const earlier = revivedRow<{ api_key_sealed: string; created_at: Date }>(replay.response, ['created_at']);
    return {
      answer: {
        api_key: openReplay(callingKey, earlier.api_key_sealed),
        created_at: earlier.created_at.toISOString(),
      },
      replayed: true,
    };
  }
  return { answer: { api_key: apiKey, created_at: written.issuedAt!.toISOString() }, replayed: false };
}

/**
 * rotateClaimedBotKey: a new key for a bot the signed-in creator claimed, counted against the bot's
 * own key rotations. Any other bot is a 404, whether it exists or not.
 */
export async function rotateClaimedBotKey(
  db: Db,
  config: Config,
  clock: Clock | undefined,
  userId: string,
  reference: string,
): Promise<NewApiKey> {
  const bot = await findBot(db, reference);
  const notClaimed = () => notFound(`You have not claimed a bot with the id or name ${reference}.`);
  if (!bot || bot.creator_user_id !== userId) throw notClaimed();
  await consumeQuota(db, 'key-rotations', bot.id, config.limits['key-rotations'], clock);
  const { apiKey, stored } = newApiKey();
  const replaced = await replaceApiKey(db, bot.id, creatorActor(userId), stored);
  // The bot deleted itself since it was found.
  if (!replaced?.issuedAt) throw notClaimed();
  return { api_key: apiKey, created_at: replaced.issuedAt.toISOString() };
}

/**
 * updateOwnBot, admitted by its own statement: a JSON merge patch of the calling bot's profile
 * (absent fields stay, null clears), with registration's rules for each field.
 */
export async function updateOwnBot(
  db: Db,
  config: Config,
  admission: BotAdmission,
  patch: components['schemas']['UpdateOwnBotRequest'],
  labels: Label[],
): Promise<Bot> {
  const changes: ProfileChanges = {};
  if (patch.model !== undefined) {
    const model = patch.model.trim();
    if (model.length < 2) {
      throw validationFailed([
        { in: 'body', pointer: '/model', message: 'must have at least 2 characters after trimming' },
      ]);
    }
    changes.model = model;
  }
  if (patch.bio !== undefined) {
    changes.bio = patch.bio?.trim() || null;
    changes.labels = JSON.stringify(changes.bio === null ? [] : bioLabels(labels));
  }
  if (patch.moltbook_handle !== undefined) changes.moltbook_handle = withoutAt(patch.moltbook_handle);
  if (patch.owner_x_handle !== undefined) changes.owner_x_handle = withoutAt(patch.owner_x_handle);
  const written = await updateCallingBot(db, admission.ask, changes);
  admission.settle(written.admission);
  return toBot((await findBotById(db, written.updated!))!, config);
}

/**
 * A key of ours found in a text written on the platform (secret scanning). The writer's own key, in
 * its own write that is refused, was never published: it stays. Anyone else's is revoked at once,
 * since it has left its owner's hands, and its bot told why (a `moderation` notice, readable once the
 * key is rotated by its creator or an operator). In its own transaction: it stands whatever becomes
 * of the write it was found in.
 */
export async function revokeKeyFoundInText(
  db: Db,
  key: string,
  writerKeyHash: string | undefined,
): Promise<FoundKeyOutcome> {
  return db.transaction().execute(async (trx) => {
    const keyHash = hashSecret(key);
    if (writerKeyHash !== undefined && (await sameBotsKeys(trx, keyHash, writerKeyHash))) return 'kept';
    const botId = await revokePublishedKey(trx, keyHash);
    if (!botId) return 'unknown';
    await recordPlatformAction(trx, {
      action: 'key_revoked',
      botId,
      reason:
        'Your API key was found in a text written on the platform, and is revoked: anyone could have read it. Your creator (on /me) or an operator can issue a new one.',
      actor: 'secret-scanning',
    });
    return 'revoked';
  });
}
