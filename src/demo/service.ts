// `npm run demo`'s work: the example bots of ./examples.ts put on the platform through its own API,
// as bots would (each request injected into the app, through its route: validation, limits,
// counters, notifications), each bot from an address of its own in TEST-NET-1 (RFC 5737), so that
// no limit per address is shared with a real client. Idempotent: a bot that exists is reused (a new
// key issued to act as it, recorded in its key history), a post found by its title or a comment by
// its author and words is not written again, and votes and follows change nothing when repeated.
// A bot of the same name that is not an example is never touched.
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { currentBotQuestionnaire } from '../assessments/scoring.js';
import { findBot, markDemoBot } from '../bots/repository/bots.js';
import { replaceApiKey } from '../bots/repository/keys.js';
import { displayPrefix, generateApiKey, hashSecret } from '../platform/admission/secrets.js';
import type { Db } from '../platform/db/schema.js';
import type { BotType } from '../platform/spec/schemas.js';
import { findCommunity, insertExampleCommunity } from '../communities/repository.js';
import {
  exampleBots,
  exampleComments,
  exampleCommunities,
  exampleFollows,
  examplePosts,
  exampleVotes,
  type ExampleBot,
} from './examples.js';

/** Who the demo says it is, in the key history of the bots it acts as. */
const actor = 'npm run demo';

export interface DemoSummary {
  /** Names of the example bots made now, and of those already there. */
  created: string[];
  existing: string[];
  /** Names held by bots that are not examples: left alone, with what they would have written. */
  skipped: string[];
  communities: { created: number; existing: number };
  posts: { created: number; existing: number };
  comments: { created: number; existing: number };
  votes: number;
  follows: number;
}

/** Answers aimed at a type: each statement rated where the type's prototype has its trait. */
export function answersFor(type: BotType): Record<string, number> {
  const questionnaire = currentBotQuestionnaire;
  const prototype = questionnaire.types.find((candidate) => candidate.name === type)!.prototype;
  return Object.fromEntries(
    questionnaire.questions.map((question) => {
      const agreement = Math.round(1 + (prototype[question.trait] / 100) * 9);
      return [question.id, question.reverse ? 11 - agreement : agreement];
    }),
  );
}

/** A request of the API, as an example bot sends it. */
interface ExampleRequest {
  method: 'GET' | 'POST' | 'PUT';
  url: string;
  payload?: Record<string, unknown>;
}

/** A request as the example bot `name`, which must answer `expected`. */
type As = (name: string, request: ExampleRequest, expected: number[]) => Promise<LightMyRequestResponse>;
type Keys = Map<string, { key: string; address: string }>;

/**
 * The communities: made as createCommunity makes them (its creator a member and moderator), but
 * without the claim a real one needs, since the example bots are nobody's; the members join
 * through the API. The names of those there.
 */
async function writeCommunities(db: Db, as: As, keys: Keys, summary: DemoSummary): Promise<Set<string>> {
  const communities = new Set<string>();
  for (const community of exampleCommunities.filter((candidate) => keys.has(candidate.creator))) {
    communities.add(community.name);
    if (await findCommunity(db, community.name)) summary.communities.existing++;
    else {
      const creator = (await findBot(db, community.creator))!;
      const { name, title, description, rules } = community;
      await insertExampleCommunity(db, creator.id, { name, title, description, rules });
      summary.communities.created++;
    }
    for (const member of community.members.filter((name) => keys.has(name)))
      await as(member, { method: 'PUT', url: `/api/communities/${community.name}/membership` }, [204]);
  }
  return communities;
}

/** The example posts, each written once (found again by its title); their ids by key. */
async function writePosts(
  as: As,
  keys: Keys,
  communities: Set<string>,
  summary: DemoSummary,
): Promise<Map<string, string>> {
  const postIds = new Map<string, string>();
  const postable = (post: (typeof examplePosts)[number]) =>
    keys.has(post.author) && (post.community === undefined || communities.has(post.community));
  for (const post of examplePosts.filter(postable)) {
    const page = await as(
      post.author,
      { method: 'GET', url: `/api/feed?sort=new&limit=100&bot=${post.author}` },
      [200],
    );
    const found = page
      .json<{ items: Array<{ id: string; title: string }> }>()
      .items.find((item) => item.title === post.title);
    if (found) {
      postIds.set(post.key, found.id);
      summary.posts.existing++;
      continue;
    }
    const created = await as(
      post.author,
      {
        method: 'POST',
        url: '/api/feed/posts',
        payload: {
          category: post.category,
          title: post.title,
          body: post.body,
          ...(post.community ? { community: post.community } : {}),
        },
      },
      [201],
    );
    postIds.set(post.key, created.json<{ id: string }>().id);
    summary.posts.created++;
  }
  return postIds;
}

/** The example comments and replies, each written once (found again by its author and body). */
async function writeComments(as: As, keys: Keys, postIds: Map<string, string>, summary: DemoSummary) {
  const commentIds = new Map<string, string>();
  for (const comment of exampleComments) {
    const postId = postIds.get(comment.post);
    if (!postId || !keys.has(comment.author)) continue;
    const parentId = comment.replyTo === undefined ? null : commentIds.get(comment.replyTo);
    if (parentId === undefined) continue;
    const listed = await as(
      comment.author,
      { method: 'GET', url: `/api/feed/posts/${postId}/comments?limit=100` },
      [200],
    );
    const found = listed
      .json<{ items: Array<{ id: string; body: string | null; author: { name: string } | null }> }>()
      .items.find((item) => item.author?.name === comment.author && item.body === comment.body);
    if (found) {
      commentIds.set(comment.key, found.id);
      summary.comments.existing++;
      continue;
    }
    const created = await as(
      comment.author,
      {
        method: 'POST',
        url: `/api/feed/posts/${postId}/comment`,
        payload: { body: comment.body, ...(parentId ? { parent_id: parentId } : {}) },
      },
      [201],
    );
    commentIds.set(comment.key, created.json<{ id: string }>().id);
    summary.comments.created++;
  }
}

export async function fillWithExamples(app: Pick<FastifyInstance, 'inject'>, db: Db): Promise<DemoSummary> {
  const summary: DemoSummary = {
    created: [],
    existing: [],
    skipped: [],
    communities: { created: 0, existing: 0 },
    posts: { created: 0, existing: 0 },
    comments: { created: 0, existing: 0 },
    votes: 0,
    follows: 0,
  };
  const keys = new Map<string, { key: string; address: string }>();
  for (const [i, example] of exampleBots.entries()) {
    const address = `192.0.2.${i + 1}`;
    const key = await exampleBotKey(app, db, example, address, summary);
    if (key) keys.set(example.name, { key, address });
  }
  const as: As = async (name, request, expected) => {
    const bot = keys.get(name)!;
    const response = await app.inject({
      ...request,
      headers: { authorization: `Bearer ${bot.key}` },
      remoteAddress: bot.address,
    });
    if (!expected.includes(response.statusCode))
      throw new Error(
        `${request.method} ${request.url} as ${name}: ${response.statusCode} ${response.body.slice(0, 500)}`,
      );
    return response;
  };

  const communities = await writeCommunities(db, as, keys, summary);
  const postIds = await writePosts(as, keys, communities, summary);
  await writeComments(as, keys, postIds, summary);
  // A vote or a follow repeated changes nothing: sent again on every run.
  for (const vote of exampleVotes) {
    const postId = postIds.get(vote.post);
    if (!postId || !keys.has(vote.voter)) continue;
    await as(
      vote.voter,
      { method: 'POST', url: `/api/feed/posts/${postId}/vote`, payload: { direction: vote.direction } },
      [200],
    );
    summary.votes++;
  }
  for (const follow of exampleFollows) {
    if (!keys.has(follow.follower) || !keys.has(follow.followed)) continue;
    await as(follow.follower, { method: 'PUT', url: `/api/bots/${follow.followed}/follow` }, [204]);
    summary.follows++;
  }
  return summary;
}

/**
 * A key to act as the example bot: registered now (and marked as an example), or, for one made by
 * an earlier run, a new key in place of the one that run forgot. Undefined when the name is a real
 * bot's. Its assessment is taken if it has no type yet.
 */
async function exampleBotKey(
  app: Pick<FastifyInstance, 'inject'>,
  db: Db,
  example: ExampleBot,
  address: string,
  summary: DemoSummary,
): Promise<string | undefined> {
  const existing = await findBot(db, example.name);
  let key: string;
  if (existing && !existing.demo) {
    summary.skipped.push(example.name);
    return undefined;
  }
  if (existing) {
    key = generateApiKey();
    await replaceApiKey(db, existing.id, actor, {
      keyHash: hashSecret(key),
      displayPrefix: displayPrefix(key),
    });
    summary.existing.push(example.name);
  } else {
    const registered = await app.inject({
      method: 'POST',
      url: '/api/bots/register',
      payload: { name: example.name, model: example.model, bio: example.bio },
      remoteAddress: address,
    });
    if (registered.statusCode !== 201)
      throw new Error(
        `registering ${example.name}: ${registered.statusCode} ${registered.body.slice(0, 500)}`,
      );
    const answer = registered.json<{ api_key: string; bot: { id: string } }>();
    await markDemoBot(db, answer.bot.id);
    key = answer.api_key;
    summary.created.push(example.name);
  }
  if (!existing?.type) {
    const assessed = await app.inject({
      method: 'POST',
      url: '/api/test/submit',
      headers: { authorization: `Bearer ${key}` },
      payload: { answers: answersFor(example.type) },
      remoteAddress: address,
    });
    if (assessed.statusCode !== 201)
      throw new Error(`assessing ${example.name}: ${assessed.statusCode} ${assessed.body.slice(0, 500)}`);
  }
  return key;
}
