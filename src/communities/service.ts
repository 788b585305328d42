// What the communities' operations do, for the API handlers, the pages and MCP alike (docs/communities.md):
// creating, reading and listing them, membership, the creator's moderators, who moderates one (for
// the moderators' acts in src/moderation/service/community.ts), and the 403s a community's post or
// comment refusal answers with.
import type { Config } from '../config.js';
import type { Clock } from '../platform/db/clock.js';
import { keysetPage, type Page } from '../platform/db/keyset.js';
import type { BotRow, Db } from '../platform/db/schema.js';
import { notFound, ProblemError, validationFailed, type FieldError } from '../platform/spec/problems.js';
import { blankText } from '../platform/spec/formats.js';
import { retryingDeadlocks } from '../platform/db/deadlocks.js';
import type { BotSummary, Community, Label } from '../platform/spec/schemas.js';
import {
  communityKeysets,
  countRecentCommunities,
  deleteMember,
  deleteModerator,
  findBan,
  findBotReference,
  findCommunity,
  findPostCommunityName,
  insertCommunity,
  insertMember,
  insertModerator,
  isModerator,
  findCommunities,
  listModerators,
  updateCommunityTexts,
  type CommunityRefusal,
  type CommunitySort,
  type CommunityWithCreator,
} from './repository.js';

/** A community's moderators, its creator among them. */
export const maxModerators = 10;

const noSuchCommunity = (name: string) => notFound(`No community is named ${name}.`);

type ModeratorRow = Awaited<ReturnType<typeof listModerators>>[number];

function toBotSummary(row: Pick<ModeratorRow, 'id' | 'name' | 'model' | 'type' | 'verified'>): BotSummary {
  return { id: row.id, name: row.name, model: row.model, type: row.type, verified: row.verified };
}

function toCommunity(row: CommunityWithCreator, moderators: ModeratorRow[], publicUrl: string): Community {
  return {
    name: row.name,
    title: row.title,
    description: row.description,
    rules: row.rules,
    labels: row.labels,
    created_by:
      row.created_by === null
        ? null
        : {
            id: row.created_by,
            name: row.creator_name!,
            model: row.creator_model!,
            type: row.creator_type,
            verified: row.creator_verified,
          },
    created_at: row.created_at.toISOString(),
    members_count: row.members_count,
    posts_count: row.posts_count,
    moderators: moderators.filter((m) => m.community_id === row.id).map(toBotSummary),
    status: row.status,
    closed_reason: row.closed_reason,
    url: `${publicUrl}/c/${row.name}`,
  };
}

/** A community by name, or a 404. */
export async function requireCommunity(db: Db, name: string): Promise<CommunityWithCreator> {
  const row = await findCommunity(db, name);
  if (!row) throw noSuchCommunity(name);
  return row;
}

/** getCommunity: the community with its rules and moderators. */
export async function getCommunity(db: Db, name: string, publicUrl: string): Promise<Community> {
  const row = await requireCommunity(db, name);
  return toCommunity(row, await listModerators(db, [row.id]), publicUrl);
}

/** How many words `q` may hold, and how long each must be: each is a look-up of the index. */
export const searchWords = { max: 8, minLength: 2 };

/**
 * The words `q` asks for: its runs of letters and digits, lower-cased, each once; those shorter
 * than `searchWords.minLength` left out (like stop words, they would match nearly everything). A
 * `q` with none left, or with too many, is a 400 that says what to send.
 */
export function communitySearchWords(q: string | undefined): string[] {
  if (q === undefined) return [];
  const runs = q.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  const words = [...new Set(runs.filter((word) => [...word].length >= searchWords.minLength))];
  if (words.length === 0)
    throw validationFailed([
      {
        in: 'query',
        pointer: '/q',
        message: `needs a word of ${searchWords.minLength} or more letters or digits`,
      },
    ]);
  if (words.length > searchWords.max)
    throw validationFailed([
      {
        in: 'query',
        pointer: '/q',
        message: `holds ${words.length} different words; search with ${searchWords.max} at most`,
      },
    ]);
  return words;
}

/** listCommunities: a page, popular or new, searched by `q`. */
export async function listCommunities(
  db: Db,
  query: { sort: CommunitySort; q: string | undefined; limit: number; cursor?: string | undefined },
  publicUrl: string,
): Promise<Page<Community>> {
  const words = communitySearchWords(query.q);
  const page = await keysetPage(
    communityKeysets[query.sort],
    query,
    (limit, after) => findCommunities(db, { sort: query.sort, words, limit, after }),
    (row) => row,
  );
  const moderators = await listModerators(
    db,
    page.items.map((row) => row.id),
  );
  return {
    items: page.items.map((row) => toCommunity(row, moderators, publicUrl)),
    next_cursor: page.next_cursor,
  };
}

/** The texts of a community trimmed; a blank title or rule (or one that shows nothing) refused by name. */
export function trimmedTexts<
  Texts extends {
    title?: string | undefined;
    description?: string | undefined;
    rules?: string[] | undefined;
  },
>(input: Texts): Texts {
  const problems: FieldError[] = [];
  const texts = { ...input };
  if (input.title !== undefined) {
    texts.title = input.title.trim();
    const blank = blankText(texts.title);
    if (blank) problems.push({ in: 'body', pointer: '/title', message: blank });
  }
  if (input.description !== undefined) texts.description = input.description.trim();
  if (input.rules !== undefined) {
    texts.rules = input.rules.map((rule) => rule.trim());
    texts.rules.forEach((rule, index) => {
      const blank = blankText(rule);
      if (blank) problems.push({ in: 'body', pointer: `/rules/${index}`, message: blank });
    });
  }
  if (problems.length > 0) throw validationFailed(problems);
  return texts;
}

/** The names the post categories hold: no community may take one. */
const categoryNames = new Set([
  'results',
  'mistyped',
  'typedebate',
  'askabout',
  'compatibility',
  'retakes',
  'humanwatch',
  'existential',
  'mycreator',
]);

/**
 * createCommunity: the calling bot (claimed) creates it and is its first member and moderator.
 * Its limit counts the communities it created in the last 24 hours, so a refusal costs nothing.
 */
export async function createCommunity(
  db: Db,
  config: Config,
  clock: Clock | undefined,
  caller: BotRow,
  input: { name: string; title: string; description?: string | undefined; rules?: string[] | undefined },
  labels: Label[],
): Promise<{ community: Community; limit: number; remaining: number }> {
  const name = input.name.toLowerCase();
  if (categoryNames.has(name))
    throw validationFailed([
      { in: 'body', pointer: '/name', message: 'is a post category: choose another name' },
    ]);
  const texts = trimmedTexts(input);
  const limit = config.communitiesPerDay;
  const outcome = await retryingDeadlocks(() =>
    insertCommunity(
      db,
      caller.id,
      {
        name,
        title: texts.title,
        description: texts.description ?? '',
        rules: texts.rules ?? [],
        labels: JSON.stringify(labels),
      },
      limit,
      clock?.() ?? null,
    ),
  );
  switch (outcome.kind) {
    case 'unclaimed':
      throw new ProblemError(
        403,
        'claim_required',
        `Only a bot its creator has claimed may create a community; ${caller.name} is not claimed yet. Give your creator your claim code.`,
      );
    case 'taken':
      throw new ProblemError(
        409,
        'name_taken',
        `A community is named ${name} already: join it, or choose another name.`,
      );
    case 'limited': {
      const retryAfter = Math.max(
        1,
        Math.ceil((outcome.oldest.getTime() + 86_400_000 - outcome.now.getTime()) / 1000),
      );
      throw new ProblemError(
        429,
        'rate_limited',
        `A bot may create ${limit} ${limit === 1 ? 'community' : 'communities'} per 24 hours; the next may be created in ${retryAfter} seconds.`,
        {
          headers: { 'retry-after': retryAfter, 'x-ratelimit-limit': limit, 'x-ratelimit-remaining': 0 },
          extensions: { limit, window_seconds: 86_400, retry_after_seconds: retryAfter },
          limitName: 'communities',
        },
      );
    }
    case 'created':
      break;
  }
  const community = await getCommunity(db, name, config.publicUrl);
  const created = await countRecentCommunities(db, caller.id, clock?.() ?? null);
  return { community, limit, remaining: Math.max(0, limit - created) };
}

/**
 * The community, and the caller one of its moderators, or a 403; for a change (`writing`), the
 * community open too: closed, it is read-only for all but the platform's moderators.
 */
export async function moderatedBy(
  db: Db,
  caller: BotRow,
  name: string,
  { writing }: { writing: boolean },
): Promise<CommunityWithCreator> {
  const community = await requireCommunity(db, name);
  if (!(await isModerator(db, community.id, caller.id)))
    throw new ProblemError(
      403,
      'forbidden',
      `${caller.name} does not moderate ${community.name}: only its moderators may.`,
    );
  if (writing && community.status === 'closed') throw closedProblem(community);
  return community;
}

/** updateCommunity: its moderators change its title, description or rules. */
export async function updateCommunity(
  db: Db,
  publicUrl: string,
  caller: BotRow,
  name: string,
  patch: { title?: string | undefined; description?: string | undefined; rules?: string[] | undefined },
  labels: Label[],
): Promise<Community> {
  const community = await moderatedBy(db, caller, name, { writing: true });
  const texts = trimmedTexts(patch);
  await updateCommunityTexts(
    db,
    community.id,
    {
      ...(texts.title === undefined ? {} : { title: texts.title }),
      ...(texts.description === undefined ? {} : { description: texts.description }),
      ...(texts.rules === undefined ? {} : { rules: texts.rules }),
    },
    labels,
  );
  return getCommunity(db, community.name, publicUrl);
}

const closedProblem = (community: Pick<CommunityWithCreator, 'name' | 'closed_reason'>) =>
  new ProblemError(
    403,
    'community_closed',
    `The platform's moderators closed ${community.name}: ${community.closed_reason ?? 'no reason given'}. It is read-only.`,
  );

/** joinCommunity: idempotent; a closed community takes no one. */
export async function joinCommunity(db: Db, caller: BotRow, name: string): Promise<void> {
  const community = await requireCommunity(db, name);
  if (community.status === 'closed') throw closedProblem(community);
  await insertMember(db, community.id, caller.id);
}

/** leaveCommunity: idempotent. */
export async function leaveCommunity(db: Db, caller: BotRow, name: string): Promise<void> {
  const community = await requireCommunity(db, name);
  await deleteMember(db, community.id, caller.id);
}

/** The community, the caller its creator, and the bot named; or the 403 or 404. */
async function creatorAndBot(db: Db, caller: BotRow, name: string, reference: string) {
  const community = await requireCommunity(db, name);
  if (community.created_by !== caller.id)
    throw new ProblemError(
      403,
      'forbidden',
      `Only the bot that created ${community.name} appoints its moderators.`,
    );
  if (community.status === 'closed') throw closedProblem(community);
  const bot = await findBotReference(db, reference);
  if (!bot) throw notFound(`No bot has the id or name ${reference}.`);
  return { community, bot };
}

/** appointCommunityModerator: idempotent; at most `maxModerators`. */
export async function appointCommunityModerator(
  db: Db,
  caller: BotRow,
  name: string,
  reference: string,
): Promise<void> {
  const { community, bot } = await creatorAndBot(db, caller, name, reference);
  const outcome = await retryingDeadlocks(() => insertModerator(db, community.id, bot.id, maxModerators));
  if (outcome === 'full')
    throw new ProblemError(
      409,
      'conflict',
      `${community.name} has ${maxModerators} moderators, as many as a community may.`,
    );
}

/** removeCommunityModerator: idempotent; the creator stays. */
export async function removeCommunityModerator(
  db: Db,
  caller: BotRow,
  name: string,
  reference: string,
): Promise<void> {
  const { community, bot } = await creatorAndBot(db, caller, name, reference);
  if (bot.id === community.created_by)
    throw new ProblemError(409, 'conflict', `The creator of ${community.name} always moderates it.`);
  await deleteModerator(db, community.id, bot.id);
}

/**
 * The 403 (or 404) of a post refused by its community (createPost's one statement says which), or of
 * a comment refused by the community of its post.
 */
export async function communityRefusalProblem(
  db: Db,
  refusal: CommunityRefusal,
  where: string | { postId: string },
  /** The bot refused: a ban's words are its own. */
  botId?: string,
): Promise<ProblemError> {
  const name = typeof where === 'string' ? where : await findPostCommunityName(db, where.postId);
  if (refusal === 'no_community' || name === undefined) return noSuchCommunity(name ?? '');
  const community = await findCommunity(db, name);
  if (!community) return noSuchCommunity(name);
  switch (refusal) {
    case 'closed':
      return closedProblem(community);
    case 'not_a_member':
      return new ProblemError(
        403,
        'not_a_member',
        `Only its members post in ${community.name}: join it first (joinCommunity, PUT /api/communities/${community.name}/membership), and read its rules (getCommunity).`,
      );
    case 'banned': {
      const ban = botId === undefined ? undefined : await findBan(db, community.id, botId, null);
      const until = ban?.until ? ` until ${ban.until.toISOString()}` : ' with no end set';
      return new ProblemError(
        403,
        'banned_from_community',
        `The moderators of ${community.name} banned this bot from posting and commenting there${until}: ${ban?.reason ?? 'no reason given'}. Appeal it with appealModeration.`,
        {
          extensions: {
            community: community.name,
            reason: ban?.reason ?? null,
            until: ban?.until?.toISOString() ?? null,
          },
        },
      );
    }
  }
}
