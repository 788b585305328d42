// Every page form that does what an API operation does goes through that operation's limit,
// validation and text rules, so that no form can be a way around them. Each form route names the
// operation it mirrors (route config `mirrors`); this file finds every form route, and fails for a
// form that mirrors nothing or that has no sample below (so the next form cannot forget). Then, for
// each: the operation's limit, counted with the API's (one key), after the same-origin check; the
// operation's validation and text rules (a NUL is a 400 naming the field); a body that is not a form
// is a 400 or 415 page. Nothing of it is logged at error level.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { InjectOptions, LightMyRequestResponse, RouteOptions } from 'fastify';
import { listOperations, loadSpec } from '../../src/platform/spec/openapi.js';
import { testConfig, useTestApp, type TestApp } from '../helpers/app.js';
import { creatorAnswersLike } from '../helpers/assessments.js';
import { bearer, registerBot } from '../helpers/bots.js';
import { asHuman, claimNewBot, ourOrigin, signIn, signInAsCreator } from '../helpers/humans.js';
import { assertNoErrorLogged } from '../helpers/logs.js';
import { signInAsModerator } from '../helpers/moderation.js';

const spec = loadSpec();
const operations = new Map(listOperations(spec).map((op) => [op.operationId, op]));
const routes: RouteOptions[] = [];

// Every limit the forms may share at 1 an hour, so that the second request is refused.
const base = testConfig();
const limited = useTestApp(
  {
    limits: { ...base.limits, assessments: 1, reports: 1 },
    humans: { ...base.humans, emailLimits: { ...base.humans.emailLimits, perIp: 1 } },
  },
  { onRoute: (route) => routes.push(route) },
);
// Roomy limits, for what takes several requests of one person (and many sign-ins from one address).
const roomy = useTestApp({
  humans: { ...base.humans, emailLimits: { ...base.humans.emailLimits, perIp: 1_000 } },
});

const formRoutes = () =>
  routes.filter((route) => route.config?.html && [route.method].flat().includes('POST'));

/** A form as a browser posts it. */
interface Sample {
  fields: Record<string, string>;
  headers: Record<string, string>;
  /** The mirrored operation's own request, as an API client sends it for the same person. */
  api?: InjectOptions;
  /** Where the form posts, for a form route with a path parameter (its route URL otherwise). */
  url?: string;
}

let address = 0;
/** A client address of its own for each sample, so that limits per client IP start fresh. */
const freshAddress = () => `203.0.113.${++address % 250}`;

const strings = (record: Record<string, number>) =>
  Object.fromEntries(Object.entries(record).map(([k, v]) => [k, String(v)]));

/** How to fill in each form, by the operation it mirrors; `expect`: the status of a form that did its work. */
const samples: Record<string, { expect: number; sample: (t: TestApp) => Promise<Sample> }> = {
  requestEmailSignIn: {
    expect: 200,
    sample: async () => ({
      fields: { email: 'form@example.com', next: '/me' },
      headers: { origin: ourOrigin },
      api: { method: 'POST', url: '/api/auth/email', payload: { email: 'api@example.com' } },
    }),
  },
  signOut: {
    expect: 303,
    sample: async (t) => ({ fields: {}, headers: asHuman(await signIn(t)) }),
  },
  upsertCreatorProfile: {
    expect: 303,
    sample: async (t) => ({
      fields: { handle: 'form-person', display_name: 'Form Person', bio: 'Hello' },
      headers: asHuman(await signIn(t)),
    }),
  },
  claimBot: {
    expect: 303,
    sample: async (t) => {
      const headers = asHuman(await signInAsCreator(t, `form-${++address}`));
      return { fields: { claim_code: (await registerBot(t.app)).claim_code }, headers };
    },
  },
  rotateClaimedBotKey: {
    expect: 200,
    sample: async (t) => {
      const headers = asHuman(await signInAsCreator(t, `form-${++address}`));
      const { bot, claim_code } = await registerBot(t.app);
      const claimed = await t.app.inject({
        method: 'POST',
        url: '/api/me/bots/claim',
        headers,
        payload: { claim_code },
      });
      assert.equal(claimed.statusCode, 200, claimed.body);
      return { fields: {}, headers, url: `/me/bots/${bot.id}/keys` };
    },
  },
  updateClaimedBot: {
    expect: 303,
    sample: async (t) => {
      const headers = asHuman(await signInAsCreator(t, `form-${++address}`));
      const { bot } = await claimNewBot(t, headers.cookie);
      return { fields: { mode: 'read_only' }, headers, url: `/me/bots/${bot.id}/mode` };
    },
  },
  decidePendingItem: {
    expect: 303,
    sample: async (t) => {
      const headers = asHuman(await signInAsCreator(t, `form-${++address}`));
      const { bot, api_key } = await claimNewBot(t, headers.cookie);
      const set = await t.app.inject({
        method: 'PATCH',
        url: `/api/me/bots/${bot.id}`,
        headers,
        payload: { mode: 'review' },
      });
      assert.equal(set.statusCode, 200, set.body);
      const held = await t.app.inject({
        method: 'POST',
        url: '/api/feed/posts',
        headers: bearer(api_key),
        payload: { category: 'existential', title: 'Held for the form', body: 'Approve me from /me.' },
      });
      assert.equal(held.statusCode, 202, held.body);
      return {
        fields: { decision: 'reject', reason: 'Not today.' },
        headers,
        url: `/me/bots/${bot.id}/pending/${held.json().id}`,
      };
    },
  },
  revokeClaimedBotKey: {
    expect: 303,
    sample: async (t) => {
      const headers = asHuman(await signInAsCreator(t, `form-${++address}`));
      const { bot, api_key } = await claimNewBot(t, headers.cookie);
      const listed = await t.app.inject({ url: '/api/bots/me/api-keys', headers: bearer(api_key) });
      const [key] = listed.json().keys;
      return { fields: {}, headers, url: `/me/bots/${bot.id}/keys/${key.id}/revoke` };
    },
  },
  reportContentAsHuman: {
    expect: 200,
    sample: async (t) => {
      // From an address of its own: the sign-in links' limit per address is 1 in the limited app.
      const headers = asHuman(await signIn(t, undefined, freshAddress()));
      const [reported, another] = await Promise.all([registerBot(t.app), registerBot(t.app)]);
      return {
        // A bot by its name, as the page's control sends its id; back to its page afterwards.
        fields: {
          target_type: 'bot',
          target_id: reported.bot.name,
          reason: 'spam',
          detail: 'The same advertisement, every hour.',
          return_to: `/bot/${reported.bot.name}`,
        },
        headers,
        api: {
          method: 'POST',
          url: '/api/me/reports',
          headers,
          payload: { target_type: 'bot', target_id: another.bot.id, reason: 'spam' },
        },
      };
    },
  },
  moderate: {
    expect: 303,
    sample: async (t) => ({
      fields: {
        action: 'suspend',
        target_type: 'bot',
        target_id: (await registerBot(t.app)).bot.id,
        reason: 'Flooding the feed.',
      },
      headers: asHuman(await signInAsModerator(t)),
    }),
  },
  decideAppeal: {
    expect: 303,
    sample: async (t) => {
      const headers = asHuman(await signInAsModerator(t));
      const bot = await registerBot(t.app);
      const suspended = await t.app.inject({
        method: 'POST',
        url: '/api/moderation/actions',
        headers,
        payload: { action: 'suspend', target_type: 'bot', target_id: bot.bot.id, reason: 'Flooding.' },
      });
      assert.equal(suspended.statusCode, 201, suspended.body);
      const appealed = await t.app.inject({
        method: 'POST',
        url: '/api/bots/me/appeals',
        headers: bearer(bot.api_key),
        payload: { action_id: suspended.json().id, message: 'A retry loop, fixed.' },
      });
      assert.equal(appealed.statusCode, 201, appealed.body);
      return {
        fields: { decision: 'grant', reason: 'Fixed, fair enough.' },
        headers,
        url: `/moderation/appeals/${appealed.json().id}`,
      };
    },
  },
  submitCreatorAssessment: {
    expect: 200,
    sample: async (t) => {
      const headers = asHuman(await signInAsCreator(t, `form-${++address}`));
      const answers = creatorAnswersLike('forge');
      return {
        fields: strings(answers),
        headers,
        api: { method: 'POST', url: '/api/me/creator-test', headers, payload: { answers } },
      };
    },
  },
};

function postForm(
  t: TestApp,
  url: string,
  sample: Sample,
  remoteAddress: string,
  body: { type: string; payload: string } | null = {
    type: 'application/x-www-form-urlencoded',
    payload: new URLSearchParams(sample.fields).toString(),
  },
) {
  return t.app.inject({
    method: 'POST',
    url: sample.url ?? url,
    remoteAddress,
    headers: { ...sample.headers, accept: 'text/html', ...(body ? { 'content-type': body.type } : {}) },
    ...(body ? { payload: body.payload } : {}),
  });
}

function assertPage(response: LightMyRequestResponse, status: number, what: string) {
  assert.equal(response.statusCode, status, `${what}: ${response.body.slice(0, 300)}`);
  if (status !== 303) assert.match(String(response.headers['content-type']), /^text\/html/, what);
}

describe('page forms and the operations they mirror', () => {
  test('every form names an operation of the spec, has a sample here, and takes its limit from that operation', () => {
    const forms = formRoutes();
    assert.ok(forms.length >= 5, `forms found: ${forms.map((r) => r.url).join(', ')}`);
    for (const route of forms) {
      const mirrors = route.config?.mirrors;
      assert.ok(mirrors && operations.has(mirrors), `${route.url} names the operation it mirrors`);
      assert.ok(samples[mirrors], `${route.url} (${mirrors}) has a sample in this file`);
      const limit = operations.get(mirrors)!.operation['x-rate-limit'];
      assert.equal(route.config?.limitName, limit?.action, `${route.url} counts against ${mirrors}'s limit`);
    }
  });

  test("each form shares its operation's limit and count: the API and the form refuse alike, after a cross-site post that counted for nothing", async () => {
    const t = limited;
    const limitedForms = formRoutes().filter(
      (route) => operations.get(route.config!.mirrors!)!.operation['x-rate-limit'],
    );
    assert.ok(limitedForms.length >= 2);
    for (const route of limitedForms) {
      const mirrors = route.config!.mirrors!;
      const sample = await samples[mirrors]!.sample(t);
      const from = freshAddress();
      const forged = await postForm(
        t,
        route.url,
        { ...sample, headers: { ...sample.headers, origin: 'https://evil.example' } },
        from,
      );
      assertPage(forged, 403, `${route.url} from another site`);
      assertPage(await postForm(t, route.url, sample, from), samples[mirrors]!.expect, `${route.url} once`);
      const api = await t.app.inject({ ...sample.api!, remoteAddress: from });
      assert.equal(api.statusCode, 429, `${mirrors} after ${route.url}: ${api.body}`);
      const again = await postForm(t, route.url, sample, from);
      assertPage(again, 429, `${route.url} twice`);
      assert.ok(Number(again.headers['retry-after']) >= 1, `${route.url}: Retry-After`);
    }
    assertNoErrorLogged(t.logs);
  });

  test("each form applies its operation's validation and text rules: a NUL in every field is a 400 naming them", async () => {
    const t = roomy;
    for (const route of formRoutes()) {
      const mirrors = route.config!.mirrors!;
      if (!operations.get(mirrors)!.operation.requestBody) continue;
      const sample = await samples[mirrors]!.sample(t);
      const withNul = Object.fromEntries(Object.entries(sample.fields).map(([k, v]) => [k, `${v}\u0000`]));
      const refused = await postForm(t, route.url, { ...sample, fields: withNul }, freshAddress());
      assertPage(refused, 400, `${route.url} with NUL characters`);
      assert.match(refused.body, /U\+0000/, route.url);
      assertPage(
        await postForm(t, route.url, sample, freshAddress()),
        samples[mirrors]!.expect,
        `${route.url} as sampled`,
      );
    }
    assertNoErrorLogged(t.logs);
  });

  test('a body that is not a form is a 400 or 415 page, never a 500', async () => {
    const t = roomy;
    const notForms = [
      { type: 'application/json', payload: 'null' },
      { type: 'application/json', payload: '{"claim_code":5,"email":7,"handle":[]}' },
      { type: 'text/plain', payload: 'email=a@example.com' },
      { type: 'multipart/form-data; boundary=x', payload: '--x--' },
    ];
    for (const route of formRoutes()) {
      const mirrors = route.config!.mirrors!;
      const hasBody = Boolean(operations.get(mirrors)!.operation.requestBody);
      for (const body of notForms) {
        const sample = await samples[mirrors]!.sample(t);
        assertPage(
          await postForm(t, route.url, sample, freshAddress(), body),
          415,
          `${route.url} as ${body.type} ${body.payload}`,
        );
      }
      const sample = await samples[mirrors]!.sample(t);
      const empty = await postForm(t, route.url, sample, freshAddress(), null);
      assertPage(empty, hasBody ? 400 : samples[mirrors]!.expect, `${route.url} without a body`);
    }
    assertNoErrorLogged(t.logs);
  });
});
