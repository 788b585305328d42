// `npm run bench:streams`: what holding event streams costs, and how fast an event reaches them.
// - 1,000 feed streams held on one instance (each from an address of its own, through
//   X-Forwarded-For, as behind a proxy): a post published meanwhile reaches every one of them within
//   1 s (p99 of all deliveries of 20 posts), the server's RSS grows by at most 20 KB per stream, and
//   the feed's first page (`getFeed?sort=new`) keeps at least 0.9 of its throughput without streams
//   (runs alternated without, with, without, with).
// - Two instances on one database: a notification written through instance A reaches a stream held
//   on instance B within 1 s, the slowest of 100.
// The servers run as `npm start` runs them, on the Postgres server. Results go to
// bench/results/event-streams.md.
//
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npm run bench:streams
import { writeFile } from 'node:fs/promises';
import { Agent, get, type ClientRequest } from 'node:http';
import autocannon from 'autocannon';
import { sql } from 'kysely';
import { issueApiKeys, seedPlatform } from './seed.js';
import { buildServer, rssMb, serverArgs, startProcess, stopProcess } from './server-process.js';
import { benchSessionSecret, openForSeeding, withThrowawayDatabase } from './throwaway-database.js';

const seconds = Number(process.env.BENCH_SECONDS ?? 8);
const streams = Number(process.env.BENCH_STREAMS ?? 1_000);
const posts = 20;
const notifications = 100;
const goals = { p99Ms: 1_000, rssKbPerStream: 20, feedRatio: 0.9, crossInstanceMaxMs: 1_000 };

/** One stream held by this process: when each awaited id arrived in it. */
interface HeldStream {
  request: ClientRequest;
  arrivals: Map<string, number>;
}

const agent = new Agent({ keepAlive: true, maxSockets: Infinity });

function holdStream(base: string, path: string, headers: Record<string, string>): Promise<HeldStream> {
  return new Promise((resolve, reject) => {
    const arrivals = new Map<string, number>();
    const request = get(`${base}${path}`, { agent, headers }, (response) => {
      if (response.statusCode !== 200) return reject(new Error(`${path}: ${response.statusCode}`));
      response.setEncoding('utf8');
      let pending = '';
      response.on('data', (chunk: string) => {
        const at = performance.now();
        pending += chunk;
        const events = pending.split('\n\n');
        pending = events.pop()!;
        for (const event of events) {
          const data = /^data: (.*)$/m.exec(event)?.[1];
          if (data) arrivals.set((JSON.parse(data) as { id: string }).id, at);
        }
      });
      resolve({ request, arrivals });
    });
    request.on('error', reject);
  });
}

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
};

async function waitFor(check: () => boolean, timeoutMs: number) {
  const deadline = performance.now() + timeoutMs;
  while (!check() && performance.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
}

buildServer();
await withThrowawayDatabase(async (_database, url) => {
  const seeding = await openForSeeding(url);
  await seedPlatform(seeding.db, { bots: 5_000, posts: 25_000 });
  const [writer, listener] = await issueApiKeys(seeding.db, 2);
  const {
    rows: [target],
  } = await sql<{ id: string }>`
    insert into posts (bot_id, category, title, body) values (${listener!.botId}, 'results', 'Listen', 'Comment on me.')
    returning id`.execute(seeding.db);
  await seeding.close();

  const env = {
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
    WEBHOOK_DELIVERY: 'off',
  };
  const a = await startProcess(serverArgs, env);
  const write = (path: string, body: object) =>
    fetch(`${a.base}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${writer!.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });

  // The feed's first page, without and with the streams held; RSS before and after opening them.
  const feedPage = async () => {
    const load = { url: `${a.base}/api/feed?sort=new`, connections: 20 };
    await autocannon({ ...load, duration: 2 });
    return (await autocannon({ ...load, duration: seconds })).requests.average;
  };
  const without: number[] = [];
  const withStreams: number[] = [];
  without.push(await feedPage());
  const rssBefore = await rssMb(a.child.pid!);
  const held: HeldStream[] = [];
  for (let i = 0; i < streams; i++) {
    const address = `10.2.${i >> 8}.${i & 255}`;
    held.push(await holdStream(a.base, '/api/feed/stream', { 'x-forwarded-for': address }));
  }
  // Settled: a post reaches them all once before anything is measured.
  const warm = (await (
    await write('/api/feed/posts', { category: 'results', title: 'Warm', body: 'Up.' })
  ).json()) as {
    id: string;
  };
  await waitFor(() => held.every((s) => s.arrivals.has(warm.id)), 10_000);
  const rssWith = await rssMb(a.child.pid!);
  withStreams.push(await feedPage());
  for (const stream of held) stream.request.destroy();
  without.push(await feedPage());
  held.length = 0;
  for (let i = 0; i < streams; i++) {
    const address = `10.3.${i >> 8}.${i & 255}`;
    held.push(await holdStream(a.base, '/api/feed/stream', { 'x-forwarded-for': address }));
  }
  withStreams.push(await feedPage());

  const latencies: number[] = [];
  let delivered = 0;
  for (let i = 0; i < posts; i++) {
    const sent = performance.now();
    const response = await write('/api/feed/posts', {
      category: 'results',
      title: 'Live',
      body: `Post ${i}.`,
    });
    const { id } = (await response.json()) as { id: string };
    await waitFor(() => held.every((s) => s.arrivals.has(id)), 5_000);
    for (const stream of held) {
      const at = stream.arrivals.get(id);
      latencies.push(at === undefined ? Infinity : at - sent);
      if (at !== undefined) delivered++;
    }
  }
  for (const stream of held) stream.request.destroy();

  // Across instances: the listener's stream on B, the writes through A.
  const b = await startProcess(serverArgs, env);
  const inbox = await holdStream(b.base, '/api/bots/me/notifications/stream', {
    authorization: `Bearer ${listener!.apiKey}`,
  });
  const crossings: number[] = [];
  for (let i = 0; i < notifications; i++) {
    const sent = performance.now();
    const before = inbox.arrivals.size;
    const response = await write(`/api/feed/posts/${target!.id}/comment`, { body: `Comment ${i}.` });
    if (response.status !== 201)
      throw new Error(`commentOnPost: ${response.status} ${await response.text()}`);
    await waitFor(() => inbox.arrivals.size > before, 5_000);
    const arrived = [...inbox.arrivals.values()].at(-1);
    crossings.push(inbox.arrivals.size > before && arrived !== undefined ? arrived - sent : Infinity);
  }
  inbox.request.destroy();
  await stopProcess(b.child);
  await stopProcess(a.child);

  const mean = (values: number[]) => values.reduce((x, y) => x + y, 0) / values.length;
  const p99 = percentile(latencies, 99);
  const kbPerStream = ((rssWith - rssBefore) * 1024) / streams;
  const feedRatio = mean(withStreams) / mean(without);
  const crossMax = Math.max(...crossings);
  const verdict = (ok: boolean) => (ok ? 'yes' : 'NO');
  const rows = [
    `| a post reaching ${streams.toLocaleString('en')} feed streams, p99 of ${(posts * streams).toLocaleString('en')} deliveries | ${p99.toFixed(1)} ms (p50 ${percentile(latencies, 50).toFixed(1)}, max ${Math.max(...latencies).toFixed(1)}; ${delivered.toLocaleString('en')} delivered) | ≤ ${goals.p99Ms} ms | ${verdict(p99 <= goals.p99Ms)} |`,
    `| server RSS per stream held | ${kbPerStream.toFixed(1)} KB (${rssBefore.toFixed(0)} → ${rssWith.toFixed(0)} MB) | ≤ ${goals.rssKbPerStream} KB | ${verdict(kbPerStream <= goals.rssKbPerStream)} |`,
    `| \`GET /api/feed?sort=new\`, page 1, with the streams ÷ without | ${feedRatio.toFixed(3)} (${mean(withStreams).toFixed(0)} ÷ ${mean(without).toFixed(0)} req/s) | ≥ ${goals.feedRatio} | ${verdict(feedRatio >= goals.feedRatio)} |`,
    `| a notification written on A reaching a stream on B, the slowest of ${notifications} | ${crossMax.toFixed(1)} ms (p50 ${percentile(crossings, 50).toFixed(1)}) | ≤ ${goals.crossInstanceMaxMs} ms | ${verdict(crossMax <= goals.crossInstanceMaxMs)} |`,
  ];
  const report = [
    '# Event streams: delivery and cost',
    '',
    'Against the real server (compiled, as `npm start` runs it) on the Postgres server, seeded with 5,000 bots and',
    `25,000 posts. ${streams.toLocaleString('en')} feed streams held by the benchmark's process, each from an address of`,
    'its own (X-Forwarded-For); a delivery is timed from sending the write to the event arriving in the stream.',
    `The feed page: autocannon 20 connections, ${seconds} s after 2 s of warm-up, runs alternated without, with,`,
    'without, with (the streams closed and opened anew between). Across instances: two servers on one database,',
    'each comment written through A and awaited on B before the next.',
    `Generated by \`npm run bench:streams\` on ${new Date().toISOString().slice(0, 10)}.`,
    '',
    '| row | measured | goal | met |',
    '| --- | --- | --- | --- |',
    ...rows,
    '',
  ].join('\n');
  await writeFile(new URL('./results/event-streams.md', import.meta.url), report);
  console.log(report);
  process.exitCode = rows.every((row) => row.endsWith('yes |')) ? 0 : 1;
});
