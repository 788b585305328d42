// openMcpStream: GET /mcp. The server is stateless and answers JSON, so it opens no stream of its
// own: a 405 with Allow: POST and a JSON-RPC error, which MCP clients take to mean "no stream"; a
// foreign Origin is refused (403) before that, as on POST.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { useTestApp } from '../helpers/app.js';

const t = useTestApp();
let listening: Promise<string> | undefined;
const serverUrl = () => (listening ??= t.app.listen({ host: '127.0.0.1', port: 0 }));

async function jsonRpcError(response: Response) {
  assert.match(response.headers.get('content-type') ?? '', /^application\/json/);
  const answer = (await response.json()) as { jsonrpc: string; error: { code: number; message: string } };
  assert.equal(answer.jsonrpc, '2.0');
  assert.ok(answer.error.message.length > 0);
  return answer.error;
}

describe('openMcpStream 405', () => {
  test('no server-initiated stream: Allow: POST, a JSON-RPC error', async () => {
    const response = await fetch(`${await serverUrl()}/mcp`, { headers: { accept: 'text/event-stream' } });
    assert.equal(response.status, 405);
    assert.equal(response.headers.get('allow'), 'POST');
    await jsonRpcError(response);
  });
});

describe('openMcpStream 403', () => {
  test('a foreign Origin is refused before the 405', async () => {
    const response = await fetch(`${await serverUrl()}/mcp`, {
      headers: { accept: 'text/event-stream', origin: 'https://evil.example' },
    });
    assert.equal(response.status, 403);
    await jsonRpcError(response);
  });
});
