// `npm run bench:webhooks`: what having a webhook costs the writes that notify. commentOnPost on
// posts whose authors have no webhook, then on posts whose authors have one (each comment a
// notification and an outbox row, delivered meanwhile by the server's own worker to a receiver in a
// process of its own); the same for createPost mentioning a bot without, then with, a webhook. The
// server runs as `npm start` runs it; runs alternate (without, with, without, with) so both see the
// same database growth. Goal: with a webhook, at least 0.9 of the throughput without (the delivery is
// off the request path). Results go to bench/results/webhooks.md.
//
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npm run bench:webhooks
import { writeFile } from 'node:fs/promises';
import autocannon from 'autocannon';
import { sql } from 'kysely';
import { issueApiKeys, seedPlatform } from './seed.js';
import { buildServer, serverArgs, startProcess, stopProcess } from './server-process.js';
import { benchSessionSecret, openForSeeding, withThrowawayDatabase } from './throwaway-database.js';

const seconds = Number(process.env.BENCH_SECONDS ?? 8);
const connections = 20;
const goal = 0.9;

buildServer();
await withThrowawayDatabase(async (database, url) => {
  const seeding = await openForSeeding(url);
  await seedPlatform(seeding.db, { bots: 5_000, posts: 25_000 });
  const bots = await issueApiKeys(seeding.db, 2_000);
  // Authors without a webhook, authors with one, and the bots that comment and post.
  const [plain, hooked, writers] = [bots.slice(0, 250), bots.slice(250, 500), bots.slice(500)];
  const postOf = async (authors: typeof bots) =>
    (
      await sql<{ id: string }>`
        insert into posts (bot_id, category, title, body)
        select unnest(${authors.map((a) => a.botId)}::uuid[]), 'results', 'Bench', 'Comment on me.'
        returning id`.execute(seeding.db)
    ).rows.map((row) => row.id);
  const targets = { without: await postOf(plain), with: await postOf(hooked) };
  const namesOf = async (authors: typeof bots) =>
    (
      await sql<{
        name: string;
      }>`select name from bots where id = any(${authors.map((a) => a.botId)}::uuid[])`.execute(seeding.db)
    ).rows.map((row) => row.name);
  const mentioned = { without: await namesOf(plain), with: await namesOf(hooked) };
  await seeding.close();

  const sink = await startProcess(['bench/webhook-sink.mjs'], {}, '/count');
  const server = await startProcess(serverArgs, {
    DATABASE_URL: url,
    NODE_ENV: 'production',
    SESSION_SECRET: benchSessionSecret,
    IDENTITY_KEY_SECRET: benchSessionSecret,
    DM_MASTER_KEY: benchSessionSecret,
    EMAIL_SIGNIN: 'off',
    LOG_LEVEL: 'warn',
    TRUST_PROXY: '127.0.0.1',
    RATE_LIMIT_POSTS: '1000000',
    RATE_LIMIT_COMMENTS: '1000000',
    WEBHOOK_ALLOW_HTTP: 'true',
    WEBHOOK_ALLOW_PRIVATE: 'true',
  });
  for (const author of hooked) {
    const response = await fetch(`${server.base}/api/bots/me/webhook`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${author.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ url: `${sink.base}/hooks/${author.botId}` }),
    });
    if (response.status !== 200) throw new Error(`setWebhook: ${response.status} ${await response.text()}`);
  }

  let n = 0;
  const asWriter = (request: autocannon.Request): autocannon.Request => {
    const writer = n++ % writers.length;
    return {
      ...request,
      headers: {
        ...request.headers,
        authorization: `Bearer ${writers[writer]!.apiKey}`,
        'x-forwarded-for': `10.1.${writer >> 8}.${writer & 255}`,
      },
    };
  };
  const kinds = {
    commentOnPost: (which: 'without' | 'with'): autocannon.Request => ({
      method: 'POST',
      path: '/api/feed/posts/x/comment',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ body: 'A comment for the author.' }),
      setupRequest: (r) =>
        asWriter({ ...r, path: `/api/feed/posts/${targets[which][n % targets[which].length]}/comment` }),
    }),
    createPost: (which: 'without' | 'with'): autocannon.Request => ({
      method: 'POST',
      path: '/api/feed/posts',
      headers: { 'content-type': 'application/json' },
      setupRequest: (r) =>
        asWriter({
          ...r,
          body: JSON.stringify({
            category: 'results',
            title: 'Bench',
            body: `Look, @${mentioned[which][n % mentioned[which].length]} (${n}).`,
          }),
        }),
    }),
  };

  const rows: string[] = [];
  const summary: Array<{ kind: string; ratio: number }> = [];
  for (const [kind, request] of Object.entries(kinds)) {
    const runs = { without: [] as number[], with: [] as number[] };
    let non2xx = 0;
    for (const which of ['without', 'with', 'without', 'with'] as const) {
      const load = { url: server.base, connections, requests: [request(which)] };
      await autocannon({ ...load, duration: 2 });
      const result = await autocannon({ ...load, duration: seconds });
      runs[which].push(result.requests.average);
      non2xx += result.non2xx;
    }
    const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;
    const ratio = mean(runs.with) / mean(runs.without);
    summary.push({ kind, ratio });
    rows.push(
      `| ${kind} | ${mean(runs.without).toFixed(0)} | ${mean(runs.with).toFixed(0)} | ${ratio.toFixed(2)} | ${non2xx} | ${ratio >= goal && non2xx === 0 ? 'yes' : 'NO'} |`,
    );
  }
  // The deliveries the worker made meanwhile, and what was still to do when the load stopped.
  const received = Number(await (await fetch(`${sink.base}/count`)).text());
  const outbox = (
    await database.db
      .selectFrom('webhook_deliveries')
      .select((eb) => ['state', eb.fn.countAll<string>().as('n')])
      .groupBy('state')
      .execute()
  )
    .map((row) => `${row.state} ${row.n}`)
    .join(', ');
  await stopProcess(server.child);
  await stopProcess(sink.child);

  const report = [
    '# What a webhook costs the writes that notify',
    '',
    `Each write against the real server (compiled, as \`npm start\` runs it) on the Postgres server, from distinct bots`,
    `(limits out of reach), autocannon ${connections} connections, ${seconds} s per run after 2 s of warm-up, runs`,
    'alternated without/with/without/with and averaged. Without: comments on posts whose authors have no webhook, posts',
    'mentioning bots without one (a notification each, no delivery). With: the same toward bots that have a webhook (a',
    "notification and an outbox row each, delivered meanwhile by the server's worker to a receiver in its own process).",
    `Generated by \`npm run bench:webhooks\` on ${new Date().toISOString().slice(0, 10)}.`,
    '',
    '| write | requests/s without | requests/s with a webhook | with ÷ without | non-2xx | ≥ 0.9 |',
    '| --- | --- | --- | --- | --- | --- |',
    ...rows,
    '',
    `Deliveries received by the sink during the runs: ${received.toLocaleString('en')}; the outbox when the load stopped: ${outbox}.`,
    '',
  ].join('\n');
  await writeFile(new URL('./results/webhooks.md', import.meta.url), report);
  console.log(report);
  process.exitCode = summary.every((s) => s.ratio >= goal) ? 0 : 1;
});
