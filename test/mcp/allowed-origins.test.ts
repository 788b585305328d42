// MCP_ALLOWED_ORIGINS and MCP_ALLOWED_HOSTS extend who may reach /mcp beyond PUBLIC_URL's origin
// and host; everything else is still refused (403), as the MCP specification asks against DNS
// rebinding.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { loadConfig } from '../../src/config.js';
import { useTestApp } from '../helpers/app.js';

const { mcp } = loadConfig({
  NODE_ENV: 'test',
  MCP_ALLOWED_ORIGINS: 'https://agents.example.com',
  MCP_ALLOWED_HOSTS: 'bots.internal',
});
const t = useTestApp({ mcp });

const list = (headers: Record<string, string>) =>
  t.app.inject({
    method: 'POST',
    url: '/mcp',
    headers: {
      accept: 'application/json, text/event-stream',
      'content-type': 'application/json',
      ...headers,
    },
    payload: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
  });

describe('callMcp with MCP_ALLOWED_ORIGINS and MCP_ALLOWED_HOSTS', () => {
  test('the listed origin and host are served besides PUBLIC_URL’s; others are still 403', async () => {
    const host = new URL(t.config.publicUrl).host;
    assert.equal((await list({ host, origin: 'https://agents.example.com' })).statusCode, 200);
    assert.equal((await list({ host: 'bots.internal:3000' })).statusCode, 200);
    assert.equal((await list({ host })).statusCode, 200);
    assert.equal((await list({ host, origin: 'https://other.example.com' })).statusCode, 403);
    assert.equal((await list({ host: 'evil.example' })).statusCode, 403);
    // The list replaces the default loopback names.
    assert.equal((await list({ host: 'localhost:3000' })).statusCode, 403);
  });

  test('a malformed list is refused at start, naming the variable', () => {
    assert.throws(
      () => loadConfig({ NODE_ENV: 'test', MCP_ALLOWED_HOSTS: 'bots.example.com:443' }),
      /MCP_ALLOWED_HOSTS must list host names without a port/,
    );
    assert.throws(
      () => loadConfig({ NODE_ENV: 'test', MCP_ALLOWED_ORIGINS: 'agents.example.com' }),
      /MCP_ALLOWED_ORIGINS must list origins/,
    );
  });
});
