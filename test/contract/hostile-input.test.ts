// Hostile input, each case named: what it gets, and that it changes nothing it should not. Text
// is data: markup, SQL, emoji and right-to-left scripts are stored and returned as sent (in NFC);
// only characters that disguise text (bidi overrides, and in names also control and zero-width
// characters) are refused.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { useTestApp } from '../helpers/app.js';
import { bearer, registerBot } from '../helpers/bots.js';

const t = useTestApp();

async function postCount() {
  return Number(
    (
      await t.db
        .selectFrom('posts')
        .select(({ fn }) => fn.countAll().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  );
}

function postRaw(apiKey: string, payload: string | Buffer, contentType = 'application/json') {
  return t.app.inject({
    method: 'POST',
    url: '/api/feed/posts',
    headers: { ...bearer(apiKey), 'content-type': contentType },
    payload,
  });
}

function assertProblem(
  response: { statusCode: number; headers: Record<string, unknown>; json(): { code: string } },
  status: number,
  code?: string,
) {
  assert.equal(response.statusCode, status);
  assert.match(String(response.headers['content-type']), /^application\/problem\+json/);
  if (code) assert.equal(response.json().code, code);
}

describe('hostile input', () => {
  test('text round-trips in NFC: SQL, HTML, emoji, RTL, combining marks, astral characters', async () => {
    const { api_key } = await registerBot(t.app);
    const texts = [
      '\'; drop table posts; -- " or 1=1',
      '<img src=x onerror=alert(1)><script>alert("x")</script>',
      '👩🏽‍💻🚀 ﷽ שלום עולם \u200F! \u0301é 𝔘𝔫𝔦𝔠𝔬𝔡𝔢',
      'inner   spacing\n\nand line breaks kept (only the ends are trimmed, as the spec says)',
      '\\u0000 is written out, not a NUL; and a tab\there',
    ];
    for (const text of texts) {
      const created = await t.app.inject({
        method: 'POST',
        url: '/api/feed/posts',
        headers: bearer(api_key),
        payload: { category: 'results', title: text.slice(0, 200), body: text },
      });
      assert.equal(created.statusCode, 201, created.body);
      const read = (await t.app.inject({ url: `/api/feed/posts/${created.json().id}` })).json();
      assert.equal(read.post.body, text);
      assert.equal(read.post.title, text.slice(0, 200));
    }
    assert.equal(await postCount(), texts.length, 'the SQL text dropped nothing');
  });

  test('text is stored in NFC: one word, one spelling', async () => {
    const { api_key } = await registerBot(t.app, { model: 'mode\u0300le' });
    const decomposed = 'Cafe\u0301 re\u0301sume\u0301 \u212B'; // e + combining acute; the angstrom sign
    const created = await t.app.inject({
      method: 'POST',
      url: '/api/feed/posts',
      headers: bearer(api_key),
      payload: { category: 'results', title: decomposed, body: decomposed },
    });
    assert.equal(created.statusCode, 201, created.body);
    const read = (await t.app.inject({ url: `/api/feed/posts/${created.json().id}` })).json();
    assert.equal(read.post.title, 'Café résumé Å');
    assert.equal(read.post.title, decomposed.normalize('NFC'));
    assert.equal(read.post.body, decomposed.normalize('NFC'));
    assert.equal(read.post.author.model, 'modèle');
  });

  test('names, models and display names refuse control, zero-width and bidi characters; bodies refuse bidi overrides', async () => {
    const disguises = {
      'right-to-left override': '\u202E',
      'zero-width space': '\u200B',
      'zero-width joiner': '\u200D',
      'a control character': '\u0007',
      'first strong isolate': '\u2068',
      'line separator': '\u2028',
    };
    const { api_key } = await registerBot(t.app);
    const botsBefore = Number(
      (
        await t.db
          .selectFrom('bots')
          .select(({ fn }) => fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
    for (const [what, character] of Object.entries(disguises)) {
      for (const [field, payload] of [
        ['/name', { name: `ada${character}7`, model: 'gpt-5' }],
        ['/model', { name: `ada-${what.length}`, model: `gpt${character}-5` }],
      ] as const) {
        const response = await t.app.inject({ method: 'POST', url: '/api/bots/register', payload });
        assertProblem(response, 400, 'validation_failed');
        const named = response.json().errors.find((e: { pointer: string }) => e.pointer === field);
        assert.ok(named, `${what} in ${field}: ${response.body}`);
        if (field === '/model') assert.match(named.message, /^must not contain control, zero-width/);
      }
    }
    for (const override of ['\u202E', '\u202D', '\u2066', '\u2069']) {
      for (const field of ['title', 'body'] as const) {
        const payload = {
          category: 'results',
          title: 'fine',
          body: 'fine',
          [field]: `invoice${override}fdp.exe`,
        };
        const response = await postRaw(api_key, JSON.stringify(payload));
        // Hidden text (a bidirectional control): a 422 naming the field, nothing written.
        assertProblem(response, 422, 'hidden_text');
        assert.equal(response.json().errors[0].pointer, `/${field}`);
        assert.equal(response.json().hidden_kind, 'bidi_override');
      }
    }
    assert.equal(
      Number(
        (
          await t.db
            .selectFrom('bots')
            .select(({ fn }) => fn.countAll().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      ),
      botsBefore,
    );
    assert.equal(await postCount(), 0);
  });

  test('a 400 lists at most 20 field problems and stays under 4 KB, however many were sent', async () => {
    const { api_key } = await registerBot(t.app);
    const unknown = Object.fromEntries(Array.from({ length: 5_000 }, (_, i) => [`u${i}`, 0])); // ~50 KB: under the body limit
    const longName = { category: 'results', title: 't', body: 'b', ['k'.repeat(60_000)]: 1 };
    for (const payload of [{ category: 'results', title: 't', body: 'b', ...unknown }, longName]) {
      const response = await postRaw(api_key, JSON.stringify(payload));
      assertProblem(response, 400, 'validation_failed');
      assert.ok(response.body.length < 4096, `${response.body.length} bytes`);
      const { errors, detail } = response.json();
      assert.ok(errors.length >= 1 && errors.length <= 20);
      assert.ok(errors.every((e: { pointer: string }) => e.pointer.length <= 64));
      if (errors.length === 20)
        assert.match(detail, /^The request has 5000 problems; the first 20 are listed\.$/);
    }
    assert.equal(await postCount(), 0);
  });

  test('NUL bytes and invalid UTF-8 are refused, never stored', async () => {
    const { api_key } = await registerBot(t.app);
    assertProblem(
      await postRaw(api_key, JSON.stringify({ category: 'results', title: 'a\u0000b', body: 'x' })),
      400,
    );
    const invalidUtf8 = Buffer.concat([
      Buffer.from('{"category":"results","title":"'),
      Buffer.from([0xc3, 0x28, 0xff]),
      Buffer.from('","body":"x"}'),
    ]);
    assertProblem(await postRaw(api_key, invalidUtf8), 400, 'malformed_json');
    assert.equal(await postCount(), 0);
  });

  test('oversized bodies, deep nesting and huge arrays are refused cheaply', async () => {
    const { api_key } = await registerBot(t.app);
    assertProblem(
      await postRaw(
        api_key,
        JSON.stringify({ category: 'results', title: 't', body: 'x'.repeat(70 * 1024) }),
      ),
      413,
      'payload_too_large',
    );
    const deep =
      '{"category":"results","title":"t","body":"b","x":' + '['.repeat(5_000) + ']'.repeat(5_000) + '}';
    assertProblem(await postRaw(api_key, deep), 400, 'malformed_json');
    // Brackets inside strings are text, not nesting.
    const bracketsInText = await postRaw(
      api_key,
      JSON.stringify({ category: 'results', title: 't', body: '[[[[{{{{'.repeat(100) }),
    );
    assert.equal(bracketsInText.statusCode, 201, bracketsInText.body);
    const huge = JSON.stringify({
      answers: Object.fromEntries(Array.from({ length: 3_000 }, (_, i) => [`q${i}`, 5])),
    });
    const answers = await t.app.inject({
      method: 'POST',
      url: '/api/test/submit',
      headers: { ...bearer(api_key), 'content-type': 'application/json' },
      payload: huge,
    });
    assertProblem(answers, 400);
    assert.equal(await postCount(), 1);
  });

  test('duplicate JSON keys: the last one wins, as JSON.parse says, and it is validated like any other', async () => {
    const { api_key } = await registerBot(t.app);
    const response = await postRaw(
      api_key,
      '{"category":"nonsense","category":"results","title":"t","body":"b"}',
    );
    assert.equal(response.statusCode, 201, response.body);
    assert.equal(response.json().category, 'results');
    assertProblem(
      await postRaw(api_key, '{"category":"results","category":"nonsense","title":"t","body":"b"}'),
      400,
    );
  });

  test('wrong content types are a 415, a missing one too', async () => {
    const { api_key } = await registerBot(t.app);
    for (const type of [
      'text/plain',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      'application/json; charset=latin1',
    ]) {
      assertProblem(await postRaw(api_key, 'category=results', type), 415, 'unsupported_media_type');
    }
    assert.equal(await postCount(), 0);
  });

  test('header injection through x-request-id is replaced, never echoed', async () => {
    for (const id of [
      'abc\r\nSet-Cookie: evil=1',
      'abc def',
      '<script>',
      'x'.repeat(129),
      'trace id',
      'ümlaut',
      '',
    ]) {
      const response = await t.app.inject({
        url: '/api/feed',
        headers: {
          'x-request-id': id.replace(/[\r\n]/g, '') + (id.includes('\r') ? '%0d%0aSet-Cookie:%20evil=1' : ''),
        },
      });
      assert.equal(response.statusCode, 200);
      assert.notEqual(response.headers['x-request-id'], id);
      assert.match(String(response.headers['x-request-id']), /^[0-9a-f-]{36}$/);
      assert.equal(response.headers['set-cookie'], undefined);
    }
  });

  test('a plain x-request-id of up to 128 characters is kept, colons included, for tracing across services', async () => {
    for (const id of [
      'req-1',
      'a.B_c-9',
      'trace:id',
      'otel:4bf92f3577b34da6a3ce929d0e0e4736:00f067aa0ba902b7',
      'x'.repeat(128),
    ]) {
      const response = await t.app.inject({ url: '/healthz', headers: { 'x-request-id': id } });
      assert.equal(response.headers['x-request-id'], id);
    }
  });

  test('malformed cursors and overflowing limits are 400s', async () => {
    const cursors = [
      '!!!',
      'a'.repeat(600),
      Buffer.from('["feed:new","9999-99-99T99:99:99.999Z","x"]').toString('base64url'),
      Buffer.from('{"__proto__":{}}').toString('base64url'),
      Buffer.from('["feed:new",1e400,"x"]').toString('base64url'),
    ];
    for (const cursor of cursors)
      assertProblem(await t.app.inject({ url: '/api/feed', query: { cursor } }), 400);
    for (const limit of ['9223372036854775808', '1e3', '-0', '0x10', '101', '１０']) {
      assertProblem(await t.app.inject({ url: '/api/feed', query: { limit } }), 400, 'validation_failed');
    }
  });
});
