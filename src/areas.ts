// The areas of the platform, put together: the handler of every operation in openapi.yaml, by
// operationId (`satisfies HandlerMap` makes a missing operation or a handler that disagrees with the
// spec a compile error), and each area's pages for people. app.ts registers both.
import { analyticsHandlers } from './analytics/handlers.js';
import { analyticsPages } from './analytics/pages.js';
import { blockHandlers } from './blocks/handlers.js';
import { communityHandlers } from './communities/handlers.js';
import { communityPages } from './communities/pages.js';
import { moderationPages } from './moderation/pages.js';
import { assessmentHandlers } from './assessments/handlers.js';
import { authHandlers } from './auth/handlers.js';
import { authPages } from './auth/pages.js';
import type { Mailer } from './auth/mailer.js';
import type { OAuthProvider } from './auth/oauth.js';
import { botHandlers } from './bots/handlers.js';
import { botPages, type BotPageParts } from './bots/pages.js';
import { assessmentHistory, botTypeDescription, botTraitNames } from './assessments/service.js';
import { getFeed } from './feed/service.js';
import { followsOf } from './follows/service.js';
import type { Config } from './config.js';
import { creatorHandlers } from './creators/handlers.js';
import { creatorPages } from './creators/pages.js';
import type { ReadRouting } from './platform/db/read-routing.js';
import type { Db } from './platform/db/schema.js';
import { feedHandlers } from './feed/handlers.js';
import { feedPages } from './feed/pages.js';
import { followHandlers } from './follows/handlers.js';
import { healthHandlers } from './health/handlers.js';
import { identityHandlers } from './identity/handlers.js';
import { createKeyRing } from './identity/key-ring.js';
import { mcpHandlers } from './mcp/handlers.js';
import { moderationHandlers } from './moderation/handlers.js';
import type { AfterModeration } from './moderation/service/moderate.js';
import { recomputeTrustAfterAction } from './trust/service.js';
import { notificationHandlers } from './notifications/handlers.js';
import type { HandlerMap } from './platform/operations/handler-types.js';
import type { WebPagesOptions } from './platform/web/plugin.js';
import type { Clock } from './platform/db/clock.js';
import { reviewHandlers } from './review/handlers.js';
import { searchHandlers } from './search/handlers.js';
import { skillHandlers } from './skills/handlers.js';
import { searchPages } from './search/pages.js';
import { webhookHandlers } from './webhooks/handlers.js';

export interface HandlerDependencies {
  /** The primary. */
  db: Db;
  /** Where public reads go (a replica, when it is fresh enough). */
  reads: ReadRouting;
  config: Config;
  clock: Clock | undefined;
  mailer: Mailer;
  oauthProviders: Map<string, OAuthProvider>;
}

export function createHandlers(deps: HandlerDependencies): HandlerMap {
  // One key ring signs identity tokens and skill.json alike, so one JWKS verifies both.
  const keys = createKeyRing(deps.db, deps.config.identity);
  return {
    ...healthHandlers(deps),
    ...botHandlers(deps),
    ...feedHandlers(deps),
    ...followHandlers(deps),
    ...blockHandlers(deps),
    ...communityHandlers(deps),
    ...assessmentHandlers(deps),
    ...analyticsHandlers(deps),
    ...authHandlers(deps),
    ...creatorHandlers(deps),
    ...reviewHandlers(deps),
    ...notificationHandlers(deps),
    ...webhookHandlers(deps),
    ...searchHandlers(deps),
    ...identityHandlers({ ...deps, keys }),
    ...moderationHandlers({ ...deps, afterModeration: trustAfterModeration(deps) }),
    ...mcpHandlers(deps),
    ...skillHandlers({ ...deps, keys }),
  } satisfies HandlerMap;
}

/** Each area's pages, in the order they are registered. */
export function areaPages(deps: Omit<HandlerDependencies, 'oauthProviders'>): WebPagesOptions['areas'] {
  return [
    (web) => feedPages(web, deps),
    (web) => searchPages(web, deps),
    (web) => communityPages(web, { ...deps, feedOf: getFeed }),
    (web) => botPages(web, { ...deps, parts: botPageParts }),
    (web) => creatorPages(web, deps),
    (web) => authPages(web, deps),
    (web) => analyticsPages(web, deps),
    (web) => moderationPages(web, { ...deps, afterModeration: trustAfterModeration(deps) }),
  ];
}

/** A platform moderation action's sequel: the trust level of the bot it concerns, recomputed at once. */
function trustAfterModeration({
  config,
  clock,
}: Pick<HandlerDependencies, 'config' | 'clock'>): AfterModeration {
  return (db, actionId) => recomputeTrustAfterAction(db, config, actionId, clock?.() ?? null);
}

/** Followers and followed bots a bot's page lists, newest first (the counts say how many in all). */
const shownFollows = 20;

/** What a bot's page shows of the assessments, the feed and the follows. */
const botPageParts: BotPageParts = {
  history: (db, botId) => assessmentHistory(db, botId),
  recentPosts: async (db, botId) => (await getFeed(db, { sort: 'new', bot: botId, limit: 5 })).items,
  follows: (db, botId) => followsOf(db, botId, shownFollows),
  describeType: botTypeDescription,
  traitNames: botTraitNames,
};
