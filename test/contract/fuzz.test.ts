// Contract fuzzing: requests generated from openapi.yaml for every operation, valid and broken
// (wrong types, out of range, missing and extra fields, hostile text, unknown ids, bad auth). For
// each: no 5xx, the status is documented for the operation, the body validates against its
// documented schema (problem+json for every error, a JSON-RPC error at /mcp), and a refused request changed nothing.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { sql } from 'kysely';
import { listOperations, loadSpec } from '../../src/platform/spec/openapi.js';
import type { OperationId } from '../../src/platform/operations/handler-types.js';
import { useTestApp } from '../helpers/app.js';
import { injectOrOpen } from '../helpers/streams.js';
import { answersLike } from '../helpers/assessments.js';
import { bearer, createPost, registerBot } from '../helpers/bots.js';
import { assertContract } from '../helpers/contract.js';
import { random, SchemaSampler } from '../helpers/fuzz.js';
import { asHuman, signIn } from '../helpers/humans.js';

const t = useTestApp();
const spec = loadSpec();
const operations = listOperations(spec);
const requests = Number(process.env.FUZZ_REQUESTS ?? 1_400);
const seed = Number(process.env.FUZZ_SEED ?? 20261121);

/** Rows of every table a request could write; a refused request must leave it unchanged. */
async function fingerprint(): Promise<string> {
  const tables = [
    'bots',
    'api_keys',
    'posts',
    'comments',
    'votes',
    'assessments',
    'users',
    'user_identities',
    'creators',
    'email_sign_in_tokens',
  ];
  const { rows } = await sql<{ counts: string }>`
    select concat_ws(',', ${sql.join(tables.map((table) => sql`(select count(*) from ${sql.table(table)})`))}) as counts`.execute(
    t.db,
  );
  const votes = await sql<{ v: string }>`select coalesce(sum(direction), 0)::text as v from votes`.execute(
    t.db,
  );
  return `${rows[0]!.counts};${votes.rows[0]!.v}`;
}

/** A path segment; text that cannot be percent-encoded (a lone surrogate) becomes bytes that are not UTF-8. */
function encodePathSegment(value: string): string {
  try {
    return encodeURIComponent(value);
  } catch {
    return '%ED%A0%80';
  }
}

describe('contract fuzzing', () => {
  test(`${requests} generated requests over all ${operations.length} operations (seed ${seed})`, async () => {
    // Things for valid requests to point at.
    const bots = await Promise.all([1, 2, 3].map(() => registerBot(t.app)));
    const posts = await Promise.all(bots.map((bot) => createPost(t.app, bot.api_key)));
    const assessment = await t.app.inject({
      method: 'POST',
      url: '/api/test/submit',
      headers: bearer(bots[0]!.api_key),
      payload: { answers: answersLike('oracle') },
    });
    const cookie = await signIn(t);
    await t.app.inject({
      method: 'PUT',
      url: '/api/me/creator',
      headers: asHuman(cookie),
      payload: { handle: 'fuzzer', display_name: 'Fuzzer' },
    });
    const known = {
      post: posts.map((p) => p.id),
      bot: bots.map((b) => b.bot.id),
      result: [assessment.json().id as string],
      handle: ['fuzzer'],
    };

    const failures: string[] = [];
    let lastFingerprint: string | undefined;
    const statuses = new Map<string, Set<number>>();
    for (let i = 0; i < requests && failures.length < 10; i++) {
      const rng = random(seed + i);
      const sampler = new SchemaSampler(spec, rng);
      const op = operations[i % operations.length]!;
      const broken = rng.chance(0.5);
      const bot = rng.pick(bots);

      let path = op.path;
      for (const param of op.parameters.filter((p) => p.in === 'path')) {
        const pool = op.path.startsWith('/api/feed/posts')
          ? known.post
          : op.path.startsWith('/api/test/results')
            ? known.result
            : param.name === 'handle'
              ? known.handle
              : known.bot;
        const value =
          broken && rng.chance(0.5)
            ? String(sampler.broken(param.schema))
            : rng.chance(0.7)
              ? rng.pick(pool)
              : String(sampler.valid(param.schema));
        path = path.replace(`{${param.name}}`, encodePathSegment(value));
      }
      const query: Record<string, string> = {};
      for (const param of op.parameters.filter((p) => p.in === 'query')) {
        if (!param.required && rng.chance(0.5)) continue;
        const value = broken && rng.chance(0.5) ? sampler.broken(param.schema) : sampler.valid(param.schema);
        query[param.name] = typeof value === 'string' ? value : JSON.stringify(value);
      }
      const headers: Record<string, string> = {};
      const schemes = (op.operation.security ?? []).flatMap((requirement) => Object.keys(requirement));
      const authRoll = rng.next();
      if (schemes.includes('bearerAuth')) {
        if (authRoll < 0.85) Object.assign(headers, bearer(bot.api_key));
        else if (authRoll < 0.93)
          headers.authorization = `Bearer ${String(sampler.broken({ type: 'string' }))}`.replace(
            /[^\t\x20-\x7e]/g,
            '',
          );
      }
      if (schemes.includes('cookieAuth')) {
        if (authRoll < 0.85) Object.assign(headers, asHuman(cookie));
        else if (authRoll < 0.93) Object.assign(headers, { cookie, origin: 'https://evil.example' });
      }
      const bodySchema = op.operation.requestBody?.content['application/json']?.schema;
      let payload: string | undefined;
      if (bodySchema) {
        const example = (op.operation.requestBody!.content['application/json'] as { example?: unknown })
          .example;
        const value = broken
          ? sampler.broken(bodySchema)
          : example !== undefined && rng.chance(0.3)
            ? example
            : sampler.valid(bodySchema);
        payload = rng.chance(0.03) ? '{"truncated": ' : JSON.stringify(value);
        headers['content-type'] = rng.chance(0.03) ? 'text/plain' : 'application/json';
      }

      // The tables as the previous request left them (read once per request, after it).
      const before = lastFingerprint ?? (await fingerprint());
      const response = await injectOrOpen(t.app, {
        method: op.method.toUpperCase(),
        url: path,
        query,
        headers,
        ...(payload === undefined ? {} : { payload }),
      });
      lastFingerprint = await fingerprint();
      const label = `#${i} ${op.operationId} ${op.method.toUpperCase()} ${path} ${JSON.stringify(query)} ${payload?.slice(0, 200)} -> ${response.statusCode} ${response.body.slice(0, 300)}`;
      statuses.set(op.operationId, (statuses.get(op.operationId) ?? new Set()).add(response.statusCode));
      try {
        assert.ok(response.statusCode < 500, 'no 5xx');
        // A stream's URL goes over real HTTP, where Node refuses a request line over 16 KiB before any
        // route (431, a problem document all the same: server-options.ts); no operation answers it.
        if (response.statusCode !== 431) assertContract(op.operationId as OperationId, response);
        if (response.statusCode >= 400) {
          // /mcp answers its refusals as JSON-RPC errors, for MCP clients; everything else as problems.
          if (op.path === '/mcp') assert.equal(response.json<{ jsonrpc: string }>().jsonrpc, '2.0');
          else assert.match(String(response.headers['content-type']), /^application\/problem\+json/);
          assert.equal(lastFingerprint, before, 'a refused request changed nothing');
        }
      } catch (error) {
        failures.push(`${label}\n  ${(error as Error).message.split('\n')[0]}`);
      }
    }
    assert.deepEqual(failures, [], `replay with FUZZ_SEED=${seed}`);
    // Every operation was reached, and more than one outcome was seen across the run.
    assert.equal(statuses.size, operations.length);
  });
});
