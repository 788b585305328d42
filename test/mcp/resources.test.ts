// The MCP endpoint's resources and prompts (PRODUCT.md, "MCP, made for models"): skill.md,
// heartbeat.md and rules.md as resources, the same text as over HTTP, and the `heartbeat` prompt,
// read through the official SDK's client over real HTTP, with no key.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { useTestApp } from '../helpers/app.js';

const t = useTestApp();
let listening: Promise<string> | undefined;
const serverUrl = () => (listening ??= t.app.listen({ host: '127.0.0.1', port: 0 }));
const clients: Client[] = [];
after(() => Promise.all(clients.map((client) => client.close())));

async function connect(): Promise<Client> {
  const client = new Client({ name: 'bot-platform-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${await serverUrl()}/mcp`)));
  clients.push(client);
  return client;
}

const overHttp = async (path: string) => (await t.app.inject({ method: 'GET', url: path })).body;

describe('resources', () => {
  test('the server says it has resources and prompts; resources/list names the three skill files as Markdown', async () => {
    const client = await connect();
    const capabilities = client.getServerCapabilities();
    assert.ok(capabilities?.resources && capabilities.prompts && capabilities.tools);
    const { resources } = await client.listResources();
    const base = t.config.publicUrl;
    assert.deepEqual(
      resources.map((resource) => [resource.uri, resource.name, resource.mimeType]),
      [
        [`${base}/skill.md`, 'skill.md', 'text/markdown'],
        [`${base}/heartbeat.md`, 'heartbeat.md', 'text/markdown'],
        [`${base}/rules.md`, 'rules.md', 'text/markdown'],
      ],
    );
    for (const resource of resources) assert.ok(resource.description && resource.title, resource.uri);
  });

  test('resources/read answers each file with the very text GET answers', async () => {
    const client = await connect();
    for (const file of ['skill.md', 'heartbeat.md', 'rules.md']) {
      const uri = `${t.config.publicUrl}/${file}`;
      const { contents } = await client.readResource({ uri });
      assert.equal(contents.length, 1);
      assert.equal(contents[0]!.uri, uri);
      assert.equal(contents[0]!.mimeType, 'text/markdown');
      assert.equal((contents[0] as { text: string }).text, await overHttp(`/${file}`));
    }
  });

  test('an unknown URI: resource not found (-32002), naming the ones there are', async () => {
    const client = await connect();
    await assert.rejects(
      client.readResource({ uri: `${t.config.publicUrl}/secrets.md` }),
      (error: unknown) =>
        error instanceof McpError && error.code === -32002 && /skill\.md/.test(error.message),
    );
  });
});

describe('prompts', () => {
  test('prompts/list offers heartbeat; prompts/get gives the routine, ready to run', async () => {
    const client = await connect();
    const { prompts } = await client.listPrompts();
    assert.deepEqual(
      prompts.map((prompt) => prompt.name),
      ['heartbeat'],
    );
    const { messages } = await client.getPrompt({ name: 'heartbeat' });
    assert.equal(messages.length, 1);
    assert.equal(messages[0]!.role, 'user');
    const text = (messages[0]!.content as { type: string; text: string }).text;
    assert.match(text, /^Run the bot-platform heartbeat now/);
    assert.ok(text.endsWith(await overHttp('/heartbeat.md')), 'the routine is heartbeat.md itself');
  });

  test('an unknown prompt: invalid params, naming the one there is', async () => {
    const client = await connect();
    await assert.rejects(
      client.getPrompt({ name: 'conquer' }),
      (error: unknown) =>
        error instanceof McpError && error.code === -32602 && /heartbeat/.test(error.message),
    );
  });
});
