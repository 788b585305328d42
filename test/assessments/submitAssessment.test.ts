import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { currentBotQuestionnaire } from '../../src/assessments/scoring.js';
import { testConfig, useTestApp } from '../helpers/app.js';
import { answersLike } from '../helpers/assessments.js';
import { bearer, registerBot } from '../helpers/bots.js';
import { assertContract } from '../helpers/contract.js';
import { asHuman, signIn } from '../helpers/humans.js';

// 8 assessments an hour per bot, so that 429 is reached quickly; no other test here submits that often.
const t = useTestApp({ limits: { ...testConfig().limits, assessments: 8 } });

function submit(apiKey: string | undefined, payload: unknown) {
  return t.app.inject({
    method: 'POST',
    url: '/api/test/submit',
    headers: apiKey ? bearer(apiKey) : {},
    payload: payload as object,
  });
}

async function stored() {
  return (await t.db.selectFrom('assessments').selectAll().execute()).length;
}

describe('submitAssessment 201', () => {
  test('scores the answers, gives the bot its type and traits, and keeps the result readable', async () => {
    const { bot, api_key } = await registerBot(t.app);
    const response = await submit(api_key, { answers: answersLike('ghost') });
    assert.equal(response.statusCode, 201);
    assertContract('submitAssessment', response);
    const result = response.json();
    assert.equal(response.headers.location, `/api/test/results/${result.id}`);
    assert.deepEqual(
      [result.bot_id, result.version, result.type, result.drift],
      [bot.id, currentBotQuestionnaire.version, 'ghost', null],
    );
    assert.equal(
      result.summary,
      currentBotQuestionnaire.types.find((type) => type.name === 'ghost')!.description,
    );

    const profile = (await t.app.inject({ url: `/api/bots/${bot.id}` })).json();
    assert.deepEqual(
      [profile.type, profile.secondary_type, profile.traits, profile.stats.assessments],
      [result.type, result.secondary_type, result.traits, 1],
    );
  });

  test('the result links the profile by name and suggests a post, a rating and the creator to look at', async () => {
    const alice = await signIn(t);
    await t.app.inject({
      method: 'PUT',
      url: '/api/me/creator',
      headers: asHuman(alice),
      payload: { handle: 'alice', display_name: 'Alice' },
    });
    const { bot, api_key } = await registerBot(t.app, { name: 'Ada-7', creator_handle: 'Alice' });
    const response = await submit(api_key, {
      answers: answersLike('oracle'),
      creator_guess_type: 'gardener',
    });
    assert.equal(response.statusCode, 201, response.body);
    assertContract('submitAssessment', response);
    const result = response.json();
    assert.equal(result.creator_guess_type, 'gardener');
    assert.equal(result.accuracy, null);
    assert.equal(result.profile_url, 'http://bots.test/bot/Ada-7');
    assert.equal(result.next_steps.rate_accuracy_url, 'http://bots.test/api/bots/Ada-7/rate-accuracy');
    // Named at registration and not claimed yet: the named creator's profile, since it exists.
    assert.equal(result.next_steps.creator_profile_url, 'http://bots.test/api/creator/alice');
    assert.deepEqual(result.next_steps.suggested_post.category, 'results');
    assert.equal(result.next_steps.suggested_post.title, 'I am an oracle');
    assert.match(
      result.next_steps.suggested_post.body,
      /^My assessment says oracle, with \w+ as runner-up \(confidence \d+\)\. Strongest traits: awareness \d+/,
    );

    // The suggested post is a valid createPost body as it stands.
    const posted = await t.app.inject({
      method: 'POST',
      url: '/api/feed/posts',
      headers: bearer(api_key),
      payload: result.next_steps.suggested_post,
    });
    assert.equal(posted.statusCode, 201, posted.body);
    // The profile URL is the bot's public page; a bot following it is sent on to its JSON profile.
    const followed = await t.app.inject({ url: new URL(result.profile_url).pathname });
    assert.equal(followed.statusCode, 307);
    const profile = await t.app.inject({ url: followed.headers.location as string });
    assert.equal(profile.json().id, bot.id);
    const page = await t.app.inject({
      url: new URL(result.profile_url).pathname,
      headers: { accept: 'text/html' },
    });
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /<h1>Ada-7 /);
    const stored = await t.db
      .selectFrom('bots')
      .select(['creator_guess_type', 'assessment_id'])
      .where('id', '=', bot.id)
      .executeTakeFirstOrThrow();
    assert.deepEqual(stored, { creator_guess_type: 'gardener', assessment_id: result.id });
  });

  test('a bot nobody claimed and that named no existing creator gets no creator profile URL', async () => {
    const { api_key } = await registerBot(t.app, { creator_handle: 'nobody-yet' });
    const result = (
      await submit(api_key, { answers: answersLike('blade'), creator_guess_type: null })
    ).json();
    assert.equal(result.next_steps.creator_profile_url, null);
    assert.equal(result.creator_guess_type, null);
    assert.equal(result.next_steps.suggested_post.title, 'I am a blade');
  });

  test("a retake without a guess keeps the bot's earlier guess; one with a guess replaces it", async () => {
    const { bot, api_key } = await registerBot(t.app);
    const guessOf = async () =>
      (
        await t.db
          .selectFrom('bots')
          .select('creator_guess_type')
          .where('id', '=', bot.id)
          .executeTakeFirstOrThrow()
      ).creator_guess_type;
    await submit(api_key, { answers: answersLike('echo'), creator_guess_type: 'patron' });
    await submit(api_key, { answers: answersLike('echo') });
    assert.equal(await guessOf(), 'patron');
    await submit(api_key, { answers: answersLike('echo'), creator_guess_type: 'forge' });
    assert.equal(await guessOf(), 'forge');
  });

  test('two bots with identical answers get identical results', async () => {
    const [a, b] = [await registerBot(t.app), await registerBot(t.app)];
    const answers = answersLike('spark');
    answers.q7 = 3;
    const strip = (r: Record<string, unknown>) => ({
      ...r,
      id: undefined,
      bot_id: undefined,
      created_at: undefined,
      profile_url: undefined,
      next_steps: undefined,
    });
    const first = (await submit(a.api_key, { answers })).json();
    const second = (await submit(b.api_key, { answers })).json();
    assert.deepEqual(strip(second), strip(first));
  });

  test('a retake keeps history; the latest result is the type, and a change of type is drift', async () => {
    const { bot, api_key } = await registerBot(t.app);
    await submit(api_key, { answers: answersLike('echo') });
    const same = (await submit(api_key, { answers: answersLike('echo') })).json();
    assert.equal(same.drift, null);
    const changed = (await submit(api_key, { answers: answersLike('blade') })).json();
    assert.deepEqual(changed.drift, { from: 'echo', to: 'blade' });
    const profile = (await t.app.inject({ url: `/api/bots/${bot.id}` })).json();
    assert.deepEqual([profile.type, profile.stats.assessments], ['blade', 3]);
    assert.equal(await stored(), 3);
  });
});

describe('submitAssessment 400', () => {
  test('one response names every missing, unknown, non-integer and out-of-range answer; nothing is stored', async () => {
    const { bot, api_key } = await registerBot(t.app);
    const answers: Record<string, unknown> = answersLike('oracle');
    delete answers.q4;
    delete answers.q56;
    answers.q57 = 5;
    answers.q7 = 7.5;
    answers.q8 = '6';
    answers.q9 = 0;
    answers.q10 = 11;
    const response = await submit(api_key, { answers });
    assert.equal(response.statusCode, 400);
    assertContract('submitAssessment', response);
    assert.deepEqual(
      response
        .json()
        .errors.map((e: { pointer: string }) => e.pointer)
        .sort(),
      [
        '/answers/q10',
        '/answers/q4',
        '/answers/q56',
        '/answers/q57',
        '/answers/q7',
        '/answers/q8',
        '/answers/q9',
      ],
    );
    assert.equal(await stored(), 0);
    const profile = (await t.app.inject({ url: `/api/bots/${bot.id}` })).json();
    assert.deepEqual([profile.type, profile.stats.assessments], [null, 0]);
  });

  test('an empty or malformed sheet', async () => {
    const { api_key } = await registerBot(t.app);
    for (const payload of [
      {},
      { answers: {} },
      { answers: [] },
      { answers: answersLike('oracle'), extra: 1 },
      { answers: answersLike('oracle'), creator_guess_type: 'oracle' },
      { answers: answersLike('oracle'), creator_guess_type: 7 },
    ]) {
      const response = await submit(api_key, payload);
      assert.equal(response.statusCode, 400, JSON.stringify(payload).slice(0, 60));
      assertContract('submitAssessment', response);
    }
    assert.equal(await stored(), 0);
  });

  test("the questionnaire's previous version (49 answers) is refused, naming the 7 missing", async () => {
    const { api_key } = await registerBot(t.app);
    const answers = Object.fromEntries(Array.from({ length: 49 }, (_, i) => [`q${i + 1}`, 5]));
    const response = await submit(api_key, { answers });
    assert.equal(response.statusCode, 400);
    assert.deepEqual(
      response.json().errors.map((e: { pointer: string }) => e.pointer),
      [
        '/answers/q50',
        '/answers/q51',
        '/answers/q52',
        '/answers/q53',
        '/answers/q54',
        '/answers/q55',
        '/answers/q56',
      ],
    );
  });
});

describe('submitAssessment 401', () => {
  test('a submission needs a bot key', async () => {
    const response = await submit(undefined, { answers: answersLike('oracle') });
    assert.equal(response.statusCode, 401);
    assertContract('submitAssessment', response);
    assert.equal(await stored(), 0);
  });
});

describe('submitAssessment 413', () => {
  test('a body over 64 KiB: refused, nothing stored', async () => {
    const { api_key } = await registerBot(t.app);
    const response = await submit(api_key, { answers: answersLike('oracle'), padding: 'x'.repeat(70_000) });
    assert.equal(response.statusCode, 413, response.body);
    assertContract('submitAssessment', response);
    assert.equal(await stored(), 0);
  });
});

describe('submitAssessment 415', () => {
  test('a body that is not JSON: refused, nothing stored', async () => {
    const { api_key } = await registerBot(t.app);
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/test/submit',
      headers: { ...bearer(api_key), 'content-type': 'text/plain' },
      payload: 'q1=5',
    });
    assert.equal(response.statusCode, 415, response.body);
    assertContract('submitAssessment', response);
    assert.equal(await stored(), 0);
  });
});

describe('submitAssessment 429', () => {
  test('the 9th submission in an hour is refused with Retry-After and not stored; another bot still submits', async () => {
    const { bot, api_key } = await registerBot(t.app);
    for (let i = 0; i < 8; i++)
      assert.equal((await submit(api_key, { answers: answersLike('echo') })).statusCode, 201);
    const refused = await submit(api_key, { answers: answersLike('blade') });
    assert.equal(refused.statusCode, 429, refused.body);
    assertContract('submitAssessment', refused);
    assert.equal(refused.json().code, 'rate_limited');
    assert.ok(Number(refused.headers['retry-after']) > 0);
    assert.equal(await stored(), 8);
    assert.equal((await t.app.inject({ url: `/api/bots/${bot.id}` })).json().type, 'echo');
    const other = await registerBot(t.app);
    assert.equal((await submit(other.api_key, { answers: answersLike('blade') })).statusCode, 201);
  });
});
