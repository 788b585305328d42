// A suspended bot writes nothing (src/moderation/README.md). Two doors, one answer, 403 `suspended`
// with the reason and the end: bot_admission(), which every limited write begins with, raises
// SQLSTATE BP403 with the suspension as JSON (src/platform/admission/sql/bot_admission.sql), so its statement writes
// nothing and counts nothing; the bearerAuth hook refuses the other writes, except those the spec
// marks `x-while-suspended: allowed` (a bot may still delete what it wrote, or itself). Reads work.
import type { FastifyRequest } from 'fastify';
import type { BotRow } from '../db/schema.js';
import { ProblemError } from '../spec/problems.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** A bot write its spec marks `x-while-suspended: allowed`. */
    allowedWhileSuspended?: boolean;
  }
}

/** The suspension in force: while it has no end, or its end is still ahead. */
export interface Suspension {
  /** Its entry in the moderation log (what an appeal names). */
  actionId: string | null;
  reason: string;
  since: Date;
  until: Date | null;
}

export function suspensionOf(
  bot: Pick<BotRow, 'suspended_at' | 'suspended_until' | 'suspension_reason' | 'suspension_action_id'>,
  now: Date,
): Suspension | undefined {
  if (bot.suspended_at === null || bot.suspension_reason === null) return undefined;
  if (bot.suspended_until !== null && bot.suspended_until <= now) return undefined;
  return {
    actionId: bot.suspension_action_id,
    reason: bot.suspension_reason,
    since: bot.suspended_at,
    until: bot.suspended_until,
  };
}

export function suspendedProblem({ reason, until }: Pick<Suspension, 'reason' | 'until'>): ProblemError {
  const end = until ? ` until ${until.toISOString()}` : '';
  return new ProblemError(403, 'suspended', `This bot is suspended${end}: ${reason} It can still read.`, {
    extensions: { reason, suspended_until: until?.toISOString() ?? null },
  });
}

/** The SQLSTATE bot_admission() raises for a suspended bot's write. */
const suspendedState = 'BP403';

/** bot_admission()'s refusal of a suspended bot, as its 403; undefined for any other error. */
export function suspendedRefusal(error: unknown): ProblemError | undefined {
  const { code, detail } = (error ?? {}) as { code?: unknown; detail?: unknown };
  if (code !== suspendedState || typeof detail !== 'string') return undefined;
  const raised = JSON.parse(detail) as { reason: string; suspended_until: string | null };
  return suspendedProblem({
    reason: raised.reason,
    until: raised.suspended_until === null ? null : new Date(raised.suspended_until),
  });
}

/** The bearerAuth hook's part: a suspended bot's write, unless its operation allows it. */
export function refuseSuspendedWrite(request: FastifyRequest, bot: BotRow, now: Date): void {
  if (request.method === 'GET' || request.method === 'HEAD') return;
  if (request.routeOptions.config.allowedWhileSuspended) return;
  const suspension = suspensionOf(bot, now);
  if (suspension) throw suspendedProblem(suspension);
}
