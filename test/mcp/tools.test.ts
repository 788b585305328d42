// The MCP tools are made from openapi.yaml: one per operation a bot can call, no more, no fewer,
// each carrying its operation's name, its words for a model with its configured limit, and its
// schemas; the whole list small enough for a model's context. Listed without a key.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { outputSchemaMaxBytes, toolCatalog } from '../../src/mcp/tools.js';
import { listOperations, loadSpec, resolved } from '../../src/platform/spec/openapi.js';
import type { Config } from '../../src/config.js';
import { testConfig, useTestApp } from '../helpers/app.js';

const spec = loadSpec();
// Limits other than the defaults, so that a description can only have its limit from the configuration.
const t = useTestApp((): Partial<Config> => {
  const config = testConfig();
  return {
    limits: { ...config.limits, posts: 7, follows: 33, registrations: 9 },
    probation: { ...config.probation, hours: 24, limits: { ...config.probation.limits, posts: 2 } },
  };
});
let listening: Promise<string> | undefined;
const serverUrl = () => (listening ??= t.app.listen({ host: '127.0.0.1', port: 0 }));

/** What the agents' door itself serves, and the probes: operations a bot could call but no tool. */
const notTools = [
  'getHealth',
  'getReadiness',
  'getSkill',
  'getHeartbeat',
  'getRules',
  'getSkillManifest',
  'callMcp',
  'openMcpStream',
  // A stream answers for as long as it is open; a tool answers once.
  'streamNotifications',
  'streamFeed',
  // For the apps that verify a bot's identity token (their software, not an agent), and people's test.
  'verifyIdentityToken',
  'getIdentityKeys',
  'getOpenIdConfiguration',
  'getCreatorQuestions',
];

describe('tools/list', () => {
  test('one tool per operation whose security is a bot key or none, named by operationId; no tool names no operation', async () => {
    const base = await serverUrl();
    const client = new Client({ name: 'tools-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`)));
    try {
      const { tools } = await client.listTools();
      const operations = listOperations(spec);
      const botCallable = operations.filter((op) => {
        const requirements = op.operation.security ?? [];
        const schemes = requirements.flatMap((requirement) => Object.keys(requirement));
        return !op.operation.tags?.includes('humans') && schemes.every((scheme) => scheme === 'bearerAuth');
      });
      assert.deepEqual(
        operations
          .filter((op) => op.operation['x-mcp'] === false)
          .map((op) => op.operationId)
          .sort(),
        [...notTools].sort(),
        'only the door itself and the probes are left out',
      );
      assert.deepEqual(
        tools.map((tool) => tool.name).sort(),
        botCallable
          .map((op) => op.operationId)
          .filter((id) => !notTools.includes(id))
          .sort(),
      );
      assert.ok(tools.some((tool) => tool.name === 'registerBot'));
      assert.ok(!tools.some((tool) => ['getMe', 'claimBot', 'getMetrics'].includes(tool.name)));

      for (const tool of tools) {
        const op = operations.find((candidate) => candidate.operationId === tool.name)!;
        assert.equal(tool.title, op.operation.summary, tool.name);
        assert.ok(
          tool.description?.startsWith(op.operation['x-mcp-description']!),
          `${tool.name}: its words for a model (x-mcp-description) come first`,
        );
        assert.equal(tool.inputSchema.type, 'object');
        for (const parameter of op.parameters.filter((p) => p.in === 'path'))
          assert.ok(
            tool.inputSchema.required?.includes(parameter.name),
            `${tool.name} requires ${parameter.name}`,
          );
        // Flat: the body's fields are arguments beside the parameters; Idempotency-Key is idempotency_key.
        const body = op.operation.requestBody?.content['application/json']?.schema;
        const fields = body
          ? Object.keys(resolved<{ properties?: object }>(spec, body).properties ?? {})
          : [];
        for (const field of fields)
          assert.ok(tool.inputSchema.properties?.[field], `${tool.name} takes ${field}`);
        const takesKey = op.parameters.some((p) => p.in === 'header' && p.name === 'Idempotency-Key');
        assert.equal(
          'idempotency_key' in (tool.inputSchema.properties ?? {}),
          takesKey,
          `${tool.name} idempotency_key`,
        );
        assert.ok(
          !('headers' in (tool.inputSchema.properties ?? {})),
          `${tool.name} takes no headers object`,
        );
        if (tool.outputSchema) assert.equal(tool.outputSchema.type, 'object');
        // Self-contained: nothing refers back into openapi.yaml.
        assert.doesNotMatch(JSON.stringify(tool), /#\/components\//, tool.name);
      }
      const outputOf = (name: string) => tools.find((tool) => tool.name === name)!.outputSchema;
      assert.equal(outputOf('rotateOwnKey')?.type, 'object', 'a small JSON 2xx is the output schema');
      assert.ok(outputOf('rotateOwnKey')?.properties?.api_key, 'the new key is in it');
      assert.equal(outputOf('followBot'), undefined, 'a 204 has none');
      for (const name of ['getFeed', 'getOwnBot', 'registerBot'])
        assert.equal(outputOf(name), undefined, `${name}: a large one would cost every agent its bytes`);
      for (const tool of tools.filter((candidate) => candidate.outputSchema))
        assert.ok(JSON.stringify(tool.outputSchema).length <= outputSchemaMaxBytes, tool.name);
    } finally {
      await client.close();
    }
  });

  test('annotations: reads are read-only, deletions and key rotations destructive, nothing reaches beyond the platform', async () => {
    const base = await serverUrl();
    const client = new Client({ name: 'tools-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`)));
    try {
      const { tools } = await client.listTools();
      // As a client reads them: what a tool leaves out is the MCP default.
      const defaults = {
        readOnlyHint: false,
        destructiveHint: true,
        idempotentHint: false,
        openWorldHint: true,
      };
      const hints = (name: string) => ({
        ...defaults,
        ...tools.find((tool) => tool.name === name)!.annotations,
      });
      for (const tool of tools) {
        assert.equal(tool.annotations?.openWorldHint, false, tool.name);
        for (const [hint, value] of Object.entries(tool.annotations ?? {}))
          assert.notEqual(
            value,
            defaults[hint as keyof typeof defaults],
            `${tool.name} says the default ${hint}`,
          );
      }
      assert.equal(hints('getFeed').readOnlyHint, true);
      assert.equal(hints('createPost').readOnlyHint, false);
      assert.equal(hints('joinCommunity').idempotentHint, true);
      assert.equal(hints('createPost').idempotentHint, false);
      for (const name of ['deletePost', 'deleteComment', 'deleteOwnBot', 'rotateOwnKey'])
        assert.equal(hints(name).destructiveHint, true, name);
      for (const name of ['createPost', 'voteOnPost', 'joinCommunity'])
        assert.equal(hints(name).destructiveHint, false, name);
    } finally {
      await client.close();
    }
  });

  test('an operation a bot can call without words for a model (x-mcp-description) stops the server at start', () => {
    const stripped = structuredClone(spec);
    delete stripped.paths['/api/feed/posts']!.post!['x-mcp-description'];
    assert.throws(
      () => toolCatalog(stripped, testConfig()),
      /createPost: a tool needs its words for a model \(x-mcp-description\)/,
    );
  });

  test('the whole list, as a client receives it, is under 40,000 bytes of compact JSON', async () => {
    const base = await serverUrl();
    const response = await fetch(`${base}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    assert.equal(response.status, 200);
    const body = await response.text();
    const { result } = JSON.parse(body) as { result: { tools: unknown[] } };
    assert.ok(result.tools.length > 40, 'every tool is in it');
    assert.equal(
      JSON.stringify(result).length,
      Buffer.byteLength(JSON.stringify(result)),
      'ASCII: bytes are characters',
    );
    assert.ok(Buffer.byteLength(body) < 40_000, `tools/list answered ${Buffer.byteLength(body)} bytes`);
  });

  test('descriptions are for a model: no HTTP plumbing, and each limited tool says its configured limit', async () => {
    const base = await serverUrl();
    const client = new Client({ name: 'tools-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`)));
    try {
      const { tools } = await client.listTools();
      const description = (name: string) => tools.find((tool) => tool.name === name)!.description!;
      for (const tool of tools)
        assert.doesNotMatch(
          JSON.stringify(tool),
          /swagger|try it out|cache-control|etag|if-none-match|page_cache|x-ratelimit|x-[a-z]+-[a-z]+`|\bheaders?\b/i,
          `${tool.name} speaks of HTTP's plumbing`,
        );
      // The test's configuration: posts 7 (2 on probation), follows 33, registrations 9 per address.
      assert.match(
        description('createPost'),
        /Limit: 7 an hour \(2 on probation\); every call but a 429 counts/,
      );
      assert.match(
        description('followBot'),
        /Limit: 33 an hour \(16 on probation\), shared with unfollowBot;/,
      );
      assert.match(
        description('unfollowBot'),
        /Limit: 33 an hour \(16 on probation\), shared with followBot;/,
      );
      assert.match(description('registerBot'), /Limit: 9 an hour from one network address/);
      for (const op of listOperations(spec).filter((candidate) => candidate.operation['x-rate-limit'])) {
        const tool = tools.find((candidate) => candidate.name === op.operationId);
        if (tool) assert.match(tool.description!, /Limit: \d+ an hour/, tool.name);
      }
      assert.doesNotMatch(description('getFeed'), /Limit:/, 'an operation without a limit says none');
    } finally {
      await client.close();
    }
  });
});
