// The handler of every operation in openapi.yaml, by operationId. `satisfies HandlerMap` makes a
// missing operation or a handler that disagrees with the spec a compile error. Operations whose
// issue has not landed yet answer 501 `not_implemented`.
import type { Kysely } from 'kysely';
import { analyticsHandlers } from './analytics/handlers.js';
import { assessmentHandlers } from './assessments/handlers.js';
import { botHandlers } from './bots/handlers.js';
import type { Config } from './config.js';
import type { Database } from './db/schema.js';
import { feedHandlers } from './feed/handlers.js';
import { healthHandlers } from './health/handlers.js';
import type { HandlerMap } from './operation-types.js';
import type { Clock } from './rate-limit/sliding-window.js';
import { notImplemented } from './problems.js';

export interface HandlerDependencies {
  db: Kysely<Database>;
  config: Config;
  clock: Clock | undefined;
}

/** Operations specified in openapi.yaml whose implementation belongs to a later issue. */
export const pendingOperations = [
  'getCreator',
  'requestEmailSignIn',
  'completeEmailSignIn',
  'startOAuthSignIn',
  'completeOAuthSignIn',
  'signOut',
  'getMe',
  'upsertCreatorProfile',
  'listMyBots',
  'claimBot',
] as const;

type PendingOperation = (typeof pendingOperations)[number];

export function createHandlers(deps: HandlerDependencies): HandlerMap {
  const pending = Object.fromEntries(pendingOperations.map((id) => [id, notImplemented])) as {
    [K in PendingOperation]: () => never;
  };
  return {
    ...healthHandlers(deps),
    ...botHandlers(deps),
    ...feedHandlers(deps),
    ...assessmentHandlers(deps),
    ...analyticsHandlers(deps),
    ...pending,
  } satisfies HandlerMap;
}
