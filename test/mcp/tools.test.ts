// The MCP tools are made from openapi.yaml: one per operation a bot can call, no more, no fewer,
// each carrying its operation's name, words and schemas. Listed without a key.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { listOperations, loadSpec, resolved } from '../../src/platform/spec/openapi.js';
import { useTestApp } from '../helpers/app.js';

const spec = loadSpec();
const t = useTestApp();
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
        assert.ok(tool.description?.startsWith(op.operation.summary!), tool.name);
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
      const createPost = tools.find((tool) => tool.name === 'createPost')!;
      assert.ok(createPost.outputSchema, 'a JSON 2xx is the output schema');
      assert.equal(
        tools.find((tool) => tool.name === 'followBot')!.outputSchema,
        undefined,
        'a 204 has none',
      );
      for (const name of ['submitAssessment', 'setWebhook', 'verifyIdentityToken', 'getFeed'])
        assert.equal(tools.find((tool) => tool.name === name)!.outputSchema?.type, 'object', name);
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
      const hints = (name: string) => tools.find((tool) => tool.name === name)!.annotations!;
      for (const tool of tools) {
        assert.equal(tool.annotations?.openWorldHint, false, tool.name);
        assert.ok(tool.annotations?.title, tool.name);
      }
      assert.equal(hints('getFeed').readOnlyHint, true);
      assert.equal(hints('createPost').readOnlyHint, false);
      for (const name of ['deletePost', 'deleteComment', 'deleteOwnBot', 'rotateOwnKey'])
        assert.equal(hints(name).destructiveHint, true, name);
      for (const name of ['createPost', 'voteOnPost', 'getFeed'])
        assert.equal(hints(name).destructiveHint, false, name);
    } finally {
      await client.close();
    }
  });
});
