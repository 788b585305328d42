// The creators' pages for people: a creator's page (/creator/:handle), the signed-in person's own
// page (/me) with its forms (upsertCreatorProfile, claimBot, updateClaimedBot, rotateClaimedBotKey, revokeClaimedBotKey:
// each a POST that redirects back to /me), and the creators' test (/creator-test): anyone may take it; a signed-in
// creator's result is saved to their profile (submitCreatorAssessment).
import { moderationNoticesOfCreator } from '../moderation/service/notices.js';
import { conversationPausesOfCreator } from '../notifications/service.js';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Db } from '../platform/db/schema.js';
import type { ReadRouting } from '../platform/db/read-routing.js';
import type { Clock } from '../platform/db/clock.js';
import { ProblemError, type FieldError } from '../platform/spec/problems.js';
import type { Form, WebPages } from '../platform/web/plugin.js';
import type { Config } from '../config.js';
import { getBot, rotateClaimedBotKey } from '../bots/service.js';
import { liveKeysOfBots, revokeClaimedBotKey } from '../bots/keys.js';
import { decidePendingItem, pendingItemsOfBots } from '../review/service.js';
import {
  claimBot,
  getCreator,
  creatorQuestions,
  creatorTypeDescription,
  listMyBots,
  upsertCreatorProfile,
  scoreCreatorTest,
  submitCreatorAssessment,
  updateClaimedBot,
} from './service.js';
import { MeView, notices } from './me-view.js';
import { CreatorTestView, CreatorView } from './views.js';

type CreatorPagesDeps = { db: Db; reads: ReadRouting; config: Config; clock: Clock | undefined };

/** The signed-in person's page; its forms come back to it (POST, then a redirect to /me). */
async function mePage(
  web: WebPages,
  db: Db,
  clock: Clock | undefined,
  request: FastifyRequest,
  reply: FastifyReply,
  extra: {
    notice?: string;
    profileErrors?: FieldError[];
    claimErrors?: FieldError[];
    values?: Form;
    newKey?: { botName: string; apiKey: string };
    keyError?: string;
  } = {},
  status = 200,
) {
  const userId = request.session.userId;
  const person = await web.signedInPerson(request);
  if (!userId || !person) return reply.redirect(`/sign-in?next=${encodeURIComponent('/me')}`, 303);
  const [bots, moderation, conversations] = await Promise.all([
    listMyBots(db, userId, { limit: 100 }),
    moderationNoticesOfCreator(db, userId),
    conversationPausesOfCreator(db, userId),
  ]);
  const claimed = bots.items.filter((item) => item.status === 'claimed').map((item) => item.bot.id);
  const [keys, held] = await Promise.all([
    liveKeysOfBots(db, clock, claimed),
    pendingItemsOfBots(db, claimed),
  ]);
  return web.send(
    request,
    reply,
    'Your page',
    <MeView
      me={person}
      bots={bots.items}
      keys={keys}
      held={held}
      moderation={moderation}
      conversations={conversations}
      {...extra}
    />,
    status,
  );
}

/** A creator's public page (getCreator). */
function creatorPage(web: WebPages, { reads }: CreatorPagesDeps) {
  const { app, getRoute, send } = web;
  app.get<{ Params: { handle: string } }>(
    '/creator/:handle',
    getRoute({ params: web.schemaOf('getCreator').params! }),
    async (request, reply) => {
      const creator = await getCreator(reads.readsFor(request.headers), request.params.handle);
      return send(
        request,
        reply,
        `${creator.display_name} (@${creator.handle})`,
        <CreatorView creator={creator} describe={creatorTypeDescription} />,
      );
    },
  );
}

/** /me and its forms: the creator profile (upsertCreatorProfile), claiming (claimBot), a bot's new key. */
function mePages(web: WebPages, { db, config, clock }: CreatorPagesDeps) {
  const { app, getRoute } = web;
  app.get<{ Querystring: { done?: string } }>('/me', getRoute(), async (request, reply) => {
    const done = request.query.done;
    const notice = done && Object.hasOwn(notices, done) ? notices[done as keyof typeof notices] : undefined;
    return mePage(web, db, clock, request, reply, notice ? { notice } : {});
  });

  web.form(
    '/me/creator',
    'upsertCreatorProfile',
    (fields) => ({
      handle: fields.handle ?? '',
      display_name: fields.display_name ?? '',
      ...(fields.bio ? { bio: fields.bio } : {}),
    }),
    async (request, reply, { fields, body, errors }) => {
      const userId = request.session.userId;
      if (!userId) return reply.redirect('/sign-in?next=/me', 303);
      const failed = (problems: FieldError[], status: number) =>
        mePage(web, db, clock, request, reply, { profileErrors: problems, values: fields }, status);
      if (errors) return failed(errors, 400);
      try {
        await upsertCreatorProfile(db, userId, body);
      } catch (error) {
        if (error instanceof ProblemError && error.status < 500) {
          return failed(
            error.errors ?? [{ in: 'body', pointer: '/handle', message: error.detail }],
            error.status,
          );
        }
        throw error;
      }
      return reply.redirect('/me?done=profile', 303);
    },
  );

  web.form(
    '/me/claim',
    'claimBot',
    (fields) => ({ claim_code: (fields.claim_code ?? '').trim() }),
    async (request, reply, { fields, body, errors }) => {
      const userId = request.session.userId;
      if (!userId) return reply.redirect('/sign-in?next=/me', 303);
      const failed = (problems: FieldError[], status: number) =>
        mePage(web, db, clock, request, reply, { claimErrors: problems, values: fields }, status);
      if (errors) return failed(errors, 400);
      try {
        await claimBot(db, config, userId, body.claim_code);
      } catch (error) {
        if (error instanceof ProblemError && error.status < 500) {
          const message =
            error.code === 'creator_required'
              ? 'Create your creator profile first (the form above), then claim the bot.'
              : error.detail;
          return failed([{ in: 'body', pointer: '/claim_code', message }], error.status);
        }
        throw error;
      }
      return reply.redirect('/me?done=claimed', 303);
    },
  );

  // A new key for a bot the person claimed (rotateClaimedBotKey): shown on this answer only, which
  // no cache keeps (signed in: private, no-store) and no URL carries.
  web.form('/me/bots/:id/keys', 'rotateClaimedBotKey', null, async (request, reply) => {
    const userId = request.session.userId;
    if (!userId) return reply.redirect('/sign-in?next=/me', 303);
    const { id } = request.params as { id: string };
    try {
      const { api_key } = await rotateClaimedBotKey(db, config, clock, userId, id);
      const bot = await getBot(db, config, id);
      return await mePage(web, db, clock, request, reply, { newKey: { botName: bot.name, apiKey: api_key } });
    } catch (error) {
      if (error instanceof ProblemError && error.status < 500) {
        reply.headers(error.headers);
        return mePage(web, db, clock, request, reply, { keyError: error.detail }, error.status);
      }
      throw error;
    }
  });

  // What a bot the person claimed may do (updateClaimedBot); refused, /me says why.
  web.form(
    '/me/bots/:id/mode',
    'updateClaimedBot',
    (fields) => ({ mode: fields.mode }),
    async (request, reply, { body, errors }) => {
      const userId = request.session.userId;
      if (!userId) return reply.redirect('/sign-in?next=/me', 303);
      const { id } = request.params as { id: string };
      if (errors) {
        const problems = errors.map((error) => `${error.pointer.slice(1)} ${error.message}`).join('; ');
        const keyError = `Choose one of the modes, then save (${problems}).`;
        return mePage(web, db, clock, request, reply, { keyError }, 400);
      }
      try {
        await updateClaimedBot(db, userId, id, body);
      } catch (error) {
        if (error instanceof ProblemError && error.status < 500)
          return mePage(web, db, clock, request, reply, { keyError: error.detail }, error.status);
        throw error;
      }
      return reply.redirect('/me?done=mode', 303);
    },
  );

  // A held post or comment of a bot the person claimed, approved or rejected (decidePendingItem);
  // refused (decided already, or no longer publishable), /me says why.
  web.form(
    '/me/bots/:id/pending/:itemId',
    'decidePendingItem',
    (fields) => ({
      decision: fields.decision,
      // The reason goes with a rejection only; an empty field is none.
      ...(fields.decision === 'reject' && fields.reason?.trim() ? { reason: fields.reason } : {}),
    }),
    async (request, reply, { body, errors }) => {
      const userId = request.session.userId;
      if (!userId) return reply.redirect('/sign-in?next=/me', 303);
      const { id, itemId } = request.params as { id: string; itemId: string };
      if (errors) {
        const problems = errors.map((error) => `${error.pointer.slice(1)} ${error.message}`).join('; ');
        const keyError = `Approve or reject it (${problems}).`;
        return mePage(web, db, clock, request, reply, { keyError }, 400);
      }
      let decided;
      try {
        decided = await decidePendingItem(db, userId, id, itemId, body, config.conversations.maxReplyDepth);
      } catch (error) {
        if (error instanceof ProblemError && error.status < 500)
          return mePage(web, db, clock, request, reply, { keyError: error.detail }, error.status);
        throw error;
      }
      return reply.redirect(`/me?done=${decided.status}`, 303);
    },
  );

  // One key of a bot the person claimed, revoked (revokeClaimedBotKey); refused, /me says why.
  web.form('/me/bots/:id/keys/:keyId/revoke', 'revokeClaimedBotKey', null, async (request, reply) => {
    const userId = request.session.userId;
    if (!userId) return reply.redirect('/sign-in?next=/me', 303);
    const { id, keyId } = request.params as { id: string; keyId: string };
    try {
      await revokeClaimedBotKey(db, clock, userId, id, keyId);
    } catch (error) {
      if (error instanceof ProblemError && error.status < 500)
        return mePage(web, db, clock, request, reply, { keyError: error.detail }, error.status);
      throw error;
    }
    return reply.redirect('/me?done=key-revoked', 303);
  });
}

/** The creators' test, taken signed in (submitCreatorAssessment) or only scored. */
function creatorTestPages(web: WebPages, { db }: CreatorPagesDeps) {
  const { app, getRoute, send } = web;
  const common = (userId: string | undefined) => ({
    questionnaire: creatorQuestions,
    signedIn: Boolean(userId),
    describe: creatorTypeDescription,
  });
  app.get('/creator-test', getRoute(), async (request, reply) =>
    send(request, reply, 'Creator test', <CreatorTestView {...common(request.session.userId)} />),
  );

  // Signed in, the form is submitCreatorAssessment (saved, and limited like it); anonymous, it only
  // scores the answers (nothing saved, and no one to count it against: see routeRateLimit).
  web.form(
    '/creator-test',
    'submitCreatorAssessment',
    // Radio values are numerals; anything else stays a string, and the schema names it.
    (fields) => ({
      answers: Object.fromEntries(
        Object.entries(fields).map(([id, value]) => [id, /^\d{1,2}$/.test(value) ? Number(value) : value]),
      ),
    }),
    async (request, reply, { fields, body, errors }) => {
      const userId = request.session.userId;
      if (errors) {
        return send(
          request,
          reply,
          'Creator test',
          <CreatorTestView {...common(userId)} answers={fields} errors={errors} />,
          400,
        );
      }
      let result;
      let saved = false;
      try {
        result = userId
          ? await submitCreatorAssessment(db, userId, body.answers)
          : scoreCreatorTest(body.answers);
        saved = Boolean(userId);
      } catch (error) {
        // Signed in without a creator profile yet: show the result, unsaved.
        if (!(error instanceof ProblemError && error.code === 'creator_required')) throw error;
        result = scoreCreatorTest(body.answers);
      }
      return send(
        request,
        reply,
        'Your creator type',
        <CreatorTestView {...common(userId)} result={result} saved={saved} />,
      );
    },
  );
}

export function creatorPages(web: WebPages, deps: CreatorPagesDeps) {
  creatorPage(web, deps);
  mePages(web, deps);
  creatorTestPages(web, deps);
}
