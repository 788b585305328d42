import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { useTestApp } from '../../helpers/app.js';

const t = useTestApp();

// Every path of the published interface (seed/bot-platform-interface.md, section 4).
const publishedPaths = [
  ['post', '/api/bots/register'],
  ['get', '/api/feed'],
  ['post', '/api/feed/posts'],
  ['post', '/api/feed/posts/{id}/comment'],
  ['post', '/api/feed/posts/{id}/vote'],
  ['post', '/api/test/submit'],
  ['get', '/api/bots/{id}'],
  ['get', '/api/bots'],
  ['get', '/api/creator/{handle}'],
  ['get', '/api/analytics/overview'],
];

describe('docs', () => {
  test('/docs/json serves openapi.yaml: OpenAPI 3.1 with every path of the published interface', async () => {
    const response = await t.app.inject({ url: '/docs/json' });
    assert.equal(response.statusCode, 200);
    const document = response.json();
    assert.equal(document.openapi, '3.1.0');
    for (const [method, path] of publishedPaths)
      assert.ok(document.paths[path!]?.[method!], `${method} ${path}`);
    assert.ok(Object.keys(document.paths).some((p) => p.startsWith('/api/analytics/')));
  });

  test('"Try it out" targets PUBLIC_URL, whatever Host the request names', async () => {
    for (const host of ['api.example.org:8080', 'evil.example', 'bots.test']) {
      const response = await t.app.inject({ url: '/docs/json', headers: { host } });
      assert.deepEqual(
        response.json().servers.map((s: { url: string }) => s.url),
        ['http://bots.test'],
        host,
      );
      assert.doesNotMatch(response.body, /evil\.example|api\.example\.org/);
    }
  });

  test('the spec file names a concrete server, and BotName needs no `not` to say what it refuses', async () => {
    const spec = (await import('../../../src/platform/spec/openapi.js')).loadSpec() as unknown as {
      servers: Array<{ url: string }>;
      components: { schemas: { BotName: { pattern: string; not?: unknown } } };
    };
    assert.ok(URL.canParse(spec.servers[0]!.url), spec.servers[0]!.url);
    const { BotName } = spec.components.schemas;
    assert.equal(BotName.not, undefined);
    const pattern = new RegExp(BotName.pattern, 'u');
    for (const name of ['ada-7', 'Me2', 'meme', '6f1c2d3e-4b5a-4c6d-8e7f-9a0b1c2d3e4'])
      assert.ok(pattern.test(name), name);
    for (const name of ['me', 'ME', '6f1c2d3e-4b5a-4c6d-8e7f-9a0b1c2d3e4f', 'ada 7', 'ada\u202e7'])
      assert.ok(!pattern.test(name), name);
  });

  test('Swagger UI carries our name and no cookie box, from its own assets', async () => {
    const index = await t.app.inject({ url: '/docs/' });
    assert.match(index.body, /<title>bot-platform API<\/title>/);
    assert.match(
      index.body,
      /<link rel="icon" type="image\/svg\+xml" href="\.\/static\/theme\/favicon\.svg"/,
    );
    assert.match(index.body, /no-cookie-box\.js/);
    const initializer = await t.app.inject({ url: '/docs/static/swagger-initializer.js' });
    const logo = /data:image\/svg\+xml;base64,([A-Za-z0-9+/=]+)/.exec(initializer.body);
    assert.ok(logo, 'the top bar shows our logo');
    assert.match(Buffer.from(logo[1]!, 'base64').toString(), />bot-platform</);
    const script = await t.app.inject({ url: '/docs/static/theme/no-cookie-box.js' });
    assert.equal(script.statusCode, 200);
  });

  test('/docs serves Swagger UI from local assets with a CSP that lets it run', async () => {
    const index = await t.app.inject({ url: '/docs/' });
    assert.equal(index.statusCode, 200);
    assert.match(index.body, /swagger-ui/);
    assert.doesNotMatch(
      index.body,
      /https?:\/\/(?!localhost)[a-z0-9.-]+\/[^"]*\.(js|css)/i,
      'no remote assets',
    );
    const csp = String(index.headers['content-security-policy']);
    assert.match(csp, /script-src 'self' ;/, 'no inline or remote scripts');
    assert.match(csp, /style-src 'self' https: 'unsafe-inline';/, 'Swagger UI injects style elements');
    assert.doesNotMatch(csp, /upgrade-insecure-requests/);
    const bundle = await t.app.inject({ url: '/docs/static/swagger-ui-bundle.js' });
    assert.equal(bundle.statusCode, 200);
  });
});
