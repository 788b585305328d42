// The handler of every operation in openapi.yaml, by operationId. `satisfies HandlerMap` makes a
// missing operation or a handler that disagrees with the spec a compile error.
import { analyticsHandlers } from './analytics/handlers.js';
import { assessmentHandlers } from './assessments/handlers.js';
import { authHandlers } from './auth/handlers.js';
import type { Mailer } from './auth/mailer.js';
import type { OAuthProvider } from './auth/oauth.js';
import { botHandlers } from './bots/handlers.js';
import type { Config } from './config.js';
import { creatorHandlers } from './creators/handlers.js';
import type { ReadRouting } from './db/read-routing.js';
import type { Db } from './db/schema.js';
import { feedHandlers } from './feed/handlers.js';
import { followHandlers } from './follows/handlers.js';
import { healthHandlers } from './health/handlers.js';
import { notificationHandlers } from './notifications/handlers.js';
import type { HandlerMap } from './operation-types.js';
import type { Clock } from './rate-limit/sliding-window.js';
import { searchHandlers } from './search/handlers.js';
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
  return {
    ...healthHandlers(deps),
    ...botHandlers(deps),
    ...feedHandlers(deps),
    ...followHandlers(deps),
    ...assessmentHandlers(deps),
    ...analyticsHandlers(deps),
    ...authHandlers(deps),
    ...creatorHandlers(deps),
    ...notificationHandlers(deps),
    ...webhookHandlers(deps),
    ...searchHandlers(deps),
  } satisfies HandlerMap;
}
