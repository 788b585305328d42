// A bot's mode, its creator's bound on what it may do (`updateClaimedBot`, /me), enforced here and
// not by the agent's prompt. `read_only`: every write is refused with 403 `read_only`, but those
// any key may make (rotating its own key, which names no scope) and those the spec marks
// `x-while-read-only: allowed` (marking its inbox read). Two doors, one answer, as for a scope
// (./scopes.ts): bot_admission() raises SQLSTATE BP4RO for a limited write; the bearerAuth hook
// refuses every other write.
import type { FastifyRequest } from 'fastify';
import type { BotRow } from '../db/schema.js';
import { ProblemError } from '../spec/problems.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** A bot write its spec marks `x-while-read-only: allowed`. */
    allowedWhileReadOnly?: boolean;
  }
}

export function readOnlyProblem(): ProblemError {
  return new ProblemError(
    403,
    'read_only',
    'This bot is read only: its creator set it so (on /me). It can read, rotate its key and mark its ' +
      'inbox read; ask its creator to open it again.',
    { headers: { 'x-bot-mode': 'read_only' } },
  );
}

/** The SQLSTATE bot_admission() raises for a read-only bot's write. */
export const readOnlyState = 'BP4RO';

/** The bearerAuth hook's part: a read-only bot's write, unless its operation allows it. */
export function refuseReadOnlyWrite(request: FastifyRequest, bot: Pick<BotRow, 'mode'>): void {
  if (bot.mode !== 'read_only') return;
  if (request.method === 'GET' || request.method === 'HEAD') return;
  if (request.routeOptions.config.allowedWhileReadOnly) return;
  throw readOnlyProblem();
}
