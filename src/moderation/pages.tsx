// The moderators' page (/moderation) and its forms: /moderation/actions is `moderate`,
// /moderation/appeals/:id is `decideAppeal`, each under its operation's rules (web.form). Anyone
// without the role gets the 403 page; each form's work comes back to the page (POST, then a redirect).
// And everyone's Report control (/report, `reportContentAsHuman`), on post, comment and bot pages.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Clock } from '../platform/db/clock.js';
import { defaultPageSize } from '../platform/db/keyset.js';
import type { Db } from '../platform/db/schema.js';
import { uuidPattern } from '../platform/spec/formats.js';
import { notFound, ProblemError, type FieldError } from '../platform/spec/problems.js';
import type { WebPages } from '../platform/web/plugin.js';
import { decideAppeal, listAppeals } from './service/appeals.js';
import { listModerationActions } from './service/log.js';
import { moderate, type AfterModeration } from './service/moderate.js';
import { listReports, reportContentAsHuman } from './service/reports.js';
import { requireModerator } from './service/roles.js';
import type { LogFilter } from './log-view.js';
import { ModerationView, moderationNotices, ReportAnswerView } from './views.js';
import type { RefusedReason } from './forms.js';
import { closedCommunities, removedContent, suspendedBots } from './service/console.js';

const logShown = 20;

/** The signed-in moderator, or the 403 page for anyone else (signed in or not). */
async function moderatorOf(db: Db, request: FastifyRequest) {
  const userId = request.session.userId;
  if (!userId)
    throw new ProblemError(
      403,
      'forbidden',
      'Only moderators may see this page: sign in with the e-mail address the operator appointed.',
    );
  return requireModerator(db, userId);
}

/** A refused reason, said at its own form's field: `reason_field` is one of the page's field ids. */
function refusedReasonOf(
  errors: FieldError[] | undefined,
  field: string | undefined,
): RefusedReason | undefined {
  const error = errors?.find((candidate) => candidate.pointer === '/reason');
  if (!error || !field || !/^[A-Za-z0-9-]{1,200}$/.test(field)) return undefined;
  return { field, message: error.message };
}

/** A datetime-local field's value is a UTC time without its zone: say so, as RFC 3339 asks. */
const instant = (value: string) => (/^\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d)?$/.test(value) ? `${value}Z` : value);

type ModerationPagesDeps = { db: Db; clock: Clock | undefined; afterModeration: AfterModeration };

/** The moderate form's fields as moderate's request body. */
function moderateBody(fields: Record<string, string | undefined>, now: Date) {
  return {
    action: fields.action ?? '',
    target_type: fields.target_type ?? '',
    target_id: fields.target_id ?? '',
    reason: fields.reason ?? '',
    ...(fields.until ? { until: instant(fields.until) } : {}),
    // The suspend form's end: seconds from now (one of suspensionLengths).
    ...(fields.length && /^\d{1,8}$/.test(fields.length)
      ? { until: new Date(now.getTime() + Number(fields.length) * 1000).toISOString() }
      : {}),
    ...(fields.hide_content ? { hide_content: fields.hide_content === 'true' } : {}),
    ...(fields.category ? { category: fields.category } : {}),
    ...(fields.community ? { community: fields.community } : {}),
    // The edit form's texts, each as the community shows it; its rules one a line.
    ...(fields.title !== undefined ? { title: fields.title } : {}),
    ...(fields.description !== undefined ? { description: fields.description } : {}),
    ...(fields.rules !== undefined
      ? {
          rules: fields.rules
            .split(/\r?\n/)
            .map((rule) => rule.trim())
            .filter(Boolean),
        }
      : {}),
  };
}

/** /moderation: the console, read through the moderators' operations; the page its forms come back to. */
function consolePage(web: WebPages, { db, clock }: ModerationPagesDeps) {
  const { app, getRoute, send } = web;
  const now = () => clock?.() ?? new Date();
  // The page's query: the queue's cursor, and the log's filters (listModerationActions' own, with a
  // bot named by its name as a person knows it).
  const logQuery = web.schemaOf('listModerationActions').querystring as {
    properties: Record<string, unknown>;
  };
  const pageQuery = {
    type: 'object',
    properties: {
      cursor: (web.schemaOf('listReports').querystring as { properties: Record<string, unknown> }).properties
        .cursor,
      done: { type: 'string' },
      action: logQuery.properties.action,
      moderator: logQuery.properties.moderator,
      target_type: { type: 'string', enum: ['post', 'comment', 'bot'] },
      target: { type: 'string', maxLength: 64 },
    },
  };
  const actionKinds = web.enumOf('ModerationActionKind');

  async function page(
    request: FastifyRequest,
    reply: FastifyReply,
    extra: {
      notice?: string;
      errors?: FieldError[];
      /** The refused form's `reason_field`: the reason field of its own that says what was wrong. */
      reasonField?: string | undefined;
      problem?: string;
      cursor?: string | undefined;
      logFilter?: LogFilter;
    } = {},
    status = 200,
  ) {
    await moderatorOf(db, request);
    const logFilter = extra.logFilter ?? {};
    const target = logFilter.target?.trim() || undefined;
    const [queue, appeals, removed, suspended, closed, log] = await Promise.all([
      web.orFirstPage(extra.cursor, (cursor) =>
        listReports(db, { status: 'open', reason: undefined, limit: defaultPageSize, cursor }),
      ),
      listAppeals(db, { status: 'open', limit: 100 }),
      removedContent(db),
      suspendedBots(db, now()),
      closedCommunities(db),
      // A post or comment is found by its id only: anything else matches nothing.
      target !== undefined && logFilter.target_type !== 'bot' && !uuidPattern.test(target)
        ? { items: [] }
        : listModerationActions(db, {
            targetType: target === undefined ? undefined : (logFilter.target_type ?? 'bot'),
            targetId: target,
            action: logFilter.action,
            moderator: logFilter.moderator?.trim() || undefined,
            limit: logShown,
          }),
    ]);
    return send(
      request,
      reply,
      'Moderation',
      <ModerationView
        queue={queue.items}
        nextQueueCursor={queue.next_cursor}
        appeals={appeals.items}
        removed={removed}
        suspended={suspended}
        closed={closed}
        log={log.items}
        logFilter={logFilter}
        actions={actionKinds}
        now={now()}
        notice={extra.notice}
        errors={extra.errors}
        refusedReason={refusedReasonOf(extra.errors, extra.reasonField)}
        problem={extra.problem}
      />,
      status,
    );
  }

  app.get<{ Querystring: { cursor?: string; done?: string } & LogFilter }>(
    '/moderation',
    getRoute({ querystring: pageQuery }),
    async (request, reply) => {
      const { done, cursor, action, moderator, target_type, target } = request.query;
      const notice =
        done && Object.hasOwn(moderationNotices, done)
          ? moderationNotices[done as keyof typeof moderationNotices]
          : undefined;
      return page(request, reply, {
        ...(notice ? { notice } : {}),
        cursor,
        logFilter: { action, moderator, target_type, target },
      });
    },
  );
  return page;
}

/** The console's forms: moderate and decideAppeal, each refusal shown on the console with its status. */
function consoleForms(
  web: WebPages,
  { db, clock, afterModeration }: ModerationPagesDeps,
  page: ReturnType<typeof consolePage>,
) {
  const now = () => clock?.() ?? new Date();
  /** A refusal of the operation, shown on the page with its status. */
  const refused = (
    request: FastifyRequest,
    reply: FastifyReply,
    error: unknown,
    reasonField: string | undefined,
  ) => {
    if (!(error instanceof ProblemError) || error.status >= 500 || error.status === 403) throw error;
    return error.errors
      ? page(request, reply, { errors: error.errors, reasonField }, error.status)
      : page(request, reply, { problem: error.detail }, error.status);
  };

  web.form(
    '/moderation/actions',
    'moderate',
    (fields) => moderateBody(fields, now()),
    async (request, reply, { body, errors, fields }) => {
      const moderator = await moderatorOf(db, request);
      if (errors) return page(request, reply, { errors, reasonField: fields.reason_field }, 400);
      try {
        const action = await moderate(db, moderator, body, now(), afterModeration);
        return reply.redirect(`/moderation?done=${action.action}`, 303);
      } catch (error) {
        return refused(request, reply, error, fields.reason_field);
      }
    },
  );

  web.form(
    '/moderation/appeals/:id',
    'decideAppeal',
    (fields) => ({ decision: fields.decision ?? '', reason: fields.reason ?? '' }),
    async (request, reply, { body, errors, fields }) => {
      const moderator = await moderatorOf(db, request);
      const { id } = request.params as { id: string };
      if (!uuidPattern.test(id)) throw notFound(`No appeal has the id ${id}.`);
      if (errors) return page(request, reply, { errors, reasonField: fields.reason_field }, 400);
      try {
        const appeal = await decideAppeal(db, moderator, id, body, afterModeration);
        return reply.redirect(`/moderation?done=${appeal.status === 'granted' ? 'grant' : 'deny'}`, 303);
      } catch (error) {
        return refused(request, reply, error, fields.reason_field);
      }
    },
  );
}

/** /report: every page's Report control (reportContentAsHuman). */
function reportForm(web: WebPages, { db }: ModerationPagesDeps) {
  const { send } = web;
  const sitePath = web.patternOf('NextPath');
  // A page's Report control: the answer says it was sent (or why not) and leads back to that page.
  web.form(
    '/report',
    'reportContentAsHuman',
    (fields) => ({
      target_type: fields.target_type ?? '',
      target_id: fields.target_id ?? '',
      reason: fields.reason ?? '',
      ...(fields.detail?.trim() ? { detail: fields.detail.trim() } : {}),
    }),
    async (request, reply, { fields, body, errors }) => {
      // Only a path of this site, by the rule of the sign-in's `next`: never a way out to another
      // one (a tab or a line break that a browser drops would make `/\t/evil.example` `//evil.example`).
      const returnTo = sitePath.test(fields.return_to ?? '') ? fields.return_to! : '/';
      const userId = request.session.userId;
      if (!userId) return reply.redirect(`/sign-in?next=${encodeURIComponent(returnTo)}`, 303);
      const answer = (problem: string | undefined, status: number) =>
        send(
          request,
          reply,
          problem ? 'Report not sent' : 'Report sent',
          <ReportAnswerView problem={problem} returnTo={returnTo} />,
          status,
        );
      if (errors)
        return answer(errors.map((error) => `${error.pointer.slice(1)} ${error.message}`).join('; '), 400);
      try {
        await reportContentAsHuman(db, userId, body);
      } catch (error) {
        if (error instanceof ProblemError && error.status < 500) return answer(error.detail, error.status);
        throw error;
      }
      return answer(undefined, 200);
    },
  );
}

export function moderationPages(web: WebPages, deps: ModerationPagesDeps) {
  const page = consolePage(web, deps);
  consoleForms(web, deps, page);
  reportForm(web, deps);
}
