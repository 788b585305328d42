// `npm run bench:hardening`: what issue 72's review found slow, measured on the Postgres server.
//   - listCommunities?q= over 50,000 communities, through the real server (autocannon): the worst q
//     the rules let through (8 different words of 2 letters, each common), a common word and a rare
//     one; and, for comparison, the query as it was before (a LIKE scan per word, 50 one-letter
//     words), timed once in SQL.
//   - trust_standing() of one bot that a community's moderators banned and unbanned 200,000 times
//     (the log rows a ban used to leave without limit), with the suspensions' index and, in a
//     rolled-back transaction, without it.
// Results go to bench/results/hardening.md.
//
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npm run bench:hardening
import { writeFile } from 'node:fs/promises';
import autocannon from 'autocannon';
import { sql } from 'kysely';
import { buildApp } from '../src/app.js';
import { communitiesQuery } from '../src/communities/repository.js';
import { communitySearchWords } from '../src/communities/service.js';
import { loadConfig } from '../src/config.js';
import { benchSessionSecret, withThrowawayDatabase } from './throwaway-database.js';

const communities = 50_000;
const logRows = 200_000;
const seconds = Number(process.env.BENCH_SECONDS ?? 5);
const words = ['alpha', 'beta', 'gamma', 'delta', 'types', 'retakes', 'creators', 'debates', 'notes', 'lab'];

const searches = [
  ['8 different 2-letter words, each the start of a common word', 'al be ga de ty re cr no'],
  ['one common word (in every title)', 'gamma'],
  ['one rare word (in one description)', 'word4242'],
  [
    '50 one-letter words (refused: 400)',
    Array.from('abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwx').join(' '),
  ],
] as const;

const lines: string[] = [];
const say = (line = '') => {
  console.log(line);
  lines.push(line);
};

await withThrowawayDatabase(async (database) => {
  const db = database.db;
  const [creator] = (
    await sql<{ id: string }>`insert into bots (name, model, claim_code_hash)
      values ('bench-creator', 'gpt-5', 'x'), ('bench-banned', 'gpt-5', 'y') returning id`.execute(db)
  ).rows;
  // Titles and descriptions of a few common words each, one rare word per community.
  await sql`insert into communities (name, title, description, created_by)
    select 'space-' || i,
      ${sql.lit(words.join(' '))}::text,
      'About ' || (array[${sql.join(words.map((word) => sql.lit(word)))}])[1 + i % ${words.length}] || ' and word' || i,
      ${creator!.id}::uuid
    from generate_series(1, ${communities}) i`.execute(db);
  await sql`analyze communities`.execute(db);

  const app = await buildApp({
    config: {
      ...loadConfig({
        NODE_ENV: 'production',
        SESSION_SECRET: benchSessionSecret,
        IDENTITY_KEY_SECRET: benchSessionSecret,
        DM_MASTER_KEY: benchSessionSecret,
        EMAIL_SIGNIN: 'off',
      }),
      logLevel: 'silent',
    },
    db,
    rateLimiting: false,
  });
  const base = await app.listen({ host: '127.0.0.1', port: 0 });
  say(`# Benchmark: what issue 72's review found slow`);
  say();
  say(
    `Postgres server, ${communities.toLocaleString('en')} communities; autocannon, 10 connections, ${seconds} s a row.`,
  );
  say();
  say('| `GET /api/communities?q=` | req/s | p50 (ms) | p99 (ms) | non-2xx |');
  say('| --- | --- | --- | --- | --- |');
  for (const [label, q] of searches) {
    const result = await autocannon({
      url: `${base}/api/communities?q=${encodeURIComponent(q)}`,
      connections: 10,
      duration: seconds,
    });
    say(
      `| ${label} | ${Math.round(result.requests.average)} | ${result.latency.p50} | ${result.latency.p99} | ${result.non2xx} |`,
    );
  }
  await app.close();

  // One request's query alone, in SQL: today's for each q, and the query as it was (a LIKE over the
  // three texts for each word, 50 one-letter words).
  const median = async (run: () => Promise<unknown>) => {
    const times: number[] = [];
    for (let i = 0; i < 21; i++) {
      const started = process.hrtime.bigint();
      await run();
      times.push(Number(process.hrtime.bigint() - started) / 1e6);
    }
    return times.sort((a, b) => a - b)[10]!;
  };
  say();
  say("One request's query alone, in SQL (median of 21):");
  say();
  say('| query | ms |');
  say('| --- | --- |');
  for (const [label, q] of searches.slice(0, 3)) {
    const ms = await median(() =>
      communitiesQuery(db, {
        sort: 'popular',
        words: communitySearchWords(q),
        limit: 21,
        after: undefined,
      }).execute(),
    );
    say(`| ${label} | ${ms.toFixed(2)} |`);
  }
  const likes = Array.from('abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwx').map(
    (letter) => sql`lower(name || ' ' || title || ' ' || description) like ${`%${letter}%`}`,
  );
  const before = await median(() =>
    sql`select id from communities where ${sql.join(likes, sql` and `)}
      order by members_count desc, created_at desc, id desc limit 21`.execute(db),
  );
  say(`| before: a LIKE per word, 50 one-letter words | ${before.toFixed(2)} |`);

  // 200,000 community acts on one bot: the rows trust_standing() used to read for every bot.
  const [, banned] = (await sql<{ id: string }>`select id from bots order by name`.execute(db)).rows;
  const space = (await sql<{ id: string }>`select id from communities limit 1`.execute(db)).rows[0]!;
  await sql`insert into moderation_actions (action, target_type, target_id, reason, community_id, moderator_bot_id, moderator_bot_name)
    select case when i % 2 = 0 then 'ban' else 'unban' end, 'bot', ${banned!.id}::uuid, 'bench', ${space.id}::uuid,
      ${creator!.id}::uuid, 'bench-creator'
    from generate_series(1, ${logRows}) i`.execute(db);
  await sql`analyze moderation_actions`.execute(db);
  const standing = (on: typeof db) => () =>
    sql`select * from trust_standing(array[${banned!.id}::uuid], 0, null, true)`.execute(on);
  const withIndex = await median(standing(db));
  // Without the index, in a transaction that is rolled back: the index stays.
  class RolledBack extends Error {
    constructor(readonly ms: number) {
      super('rolled back');
    }
  }
  const withoutIndex = await db
    .transaction()
    .execute(async (trx) => {
      await sql`drop index moderation_actions_suspensions`.execute(trx);
      throw new RolledBack(await median(standing(trx)));
    })
    .catch((error: unknown) => {
      if (error instanceof RolledBack) return error.ms;
      throw error;
    });
  say();
  say(`trust_standing() of a bot with ${logRows.toLocaleString('en')} community acts on it (median of 21):`);
  say();
  say('| | ms |');
  say('| --- | --- |');
  say(`| with moderation_actions_suspensions | ${withIndex.toFixed(2)} |`);
  say(`| without it (the plan before) | ${withoutIndex.toFixed(2)} |`);
});

await writeFile(new URL('./results/hardening.md', import.meta.url), `${lines.join('\n')}\n`);
