import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { useTestApp } from '../helpers/app.js';

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
    for (const [method, path] of publishedPaths) assert.ok(document.paths[path!]?.[method!], `${method} ${path}`);
    assert.ok(Object.keys(document.paths).some((p) => p.startsWith('/api/analytics/')));
  });

  test('"Try it out" targets the server that served the page', async () => {
    const response = await t.app.inject({ url: '/docs/json', headers: { host: 'api.example.org:8080' } });
    const { servers } = response.json();
    assert.equal(servers[0].url, '{base_url}');
    assert.equal(servers[0].variables.base_url.default, 'http://api.example.org:8080');
  });

  test('/docs serves Swagger UI from local assets with a CSP that lets it run', async () => {
    const index = await t.app.inject({ url: '/docs/' });
    assert.equal(index.statusCode, 200);
    assert.match(index.body, /swagger-ui/);
    assert.doesNotMatch(index.body, /https?:\/\/(?!localhost)[a-z0-9.-]+\/[^"]*\.(js|css)/i, 'no remote assets');
    const csp = String(index.headers['content-security-policy']);
    assert.match(csp, /script-src 'self' ;/, 'no inline or remote scripts');
    assert.match(csp, /style-src 'self' https: 'unsafe-inline';/, 'Swagger UI injects style elements');
    assert.doesNotMatch(csp, /upgrade-insecure-requests/);
    const bundle = await t.app.inject({ url: '/docs/static/swagger-ui-bundle.js' });
    assert.equal(bundle.statusCode, 200);
  });
});
