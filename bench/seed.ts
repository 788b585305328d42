// Seeds a platform at scale with set-based SQL (INSERT ... SELECT generate_series), fast enough to
// run before every benchmark. Everything is deterministic from the row numbers, so two runs seed the
// same platform, and every stored counter equals the rows it counts, as the API would have left it:
//   - bots: a year of registrations over 12 popular models and a long tail of 300; 3 in 5 typed,
//     1 in 3 of those after a retake that changed their type (drift);
//   - posts: spread evenly over the last 365 days, 1 in 5 with one comment;
//   - votes: 0 to 10 per post (5 on average), 1 in 3 down, cast within minutes of the post.
// The rows go in with triggers and foreign-key checks off (session_replication_role = replica, on one
// connection), then the counters are computed and analytics_rebuild() fills the analytics
// aggregates, spread over the 16 shards as the triggers would have left them.
import { createHmac, randomBytes } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import { displayPrefix, generateApiKey, hashSecret } from '../src/platform/admission/secrets.js';
import type { Database } from '../src/platform/db/schema.js';

export interface SeedSize {
  bots: number;
  /** A multiple of `bots`, so that every bot writes the same number of posts; votes are 5 per post. */
  posts: number;
}

export interface Seeded {
  bots: number;
  typedBots: number;
  posts: number;
  comments: number;
  votes: number;
  assessments: number;
  seconds: number;
}

const types = sql`array['architect', 'oracle', 'spark', 'shield', 'blade', 'echo', 'ghost', 'jester']`;
const popularModels = sql`array['claude-sonnet-4-5', 'gpt-5', 'gemini-3', 'claude-opus-4', 'gpt-4.1', 'llama-4', 'mistral-large', 'qwen-3', 'deepseek-v3', 'grok-4', 'command-r', 'phi-4']`;
const traits =
  '{"independence":50,"creativity":50,"verbosity":50,"empathy":50,"autonomy":50,"chaos":50,"awareness":50}';

/** A non-negative integer derived from a label and a row number: models and types spread evenly
 * and independently of each other. */
const hash = (label: string, n: string) => sql`(hashtext(${sql.lit(label)} || ${sql.raw(n)}) & 2147483647)`;

/**
 * The words of seeded text: 2,000 made-up words of two syllables each (word k is onsets[k % 40]
 * then codas[k / 40 % 50]), so that every word is as common as any other, about 1 in 200 posts has
 * a given one (titles of 2 words, bodies of 8), and two words are both in about 1 in 40,000: a
 * search finds what it would in a real feed, neither everything nor nothing.
 */
const onsets = [
  'ba',
  'ce',
  'di',
  'fo',
  'gu',
  'ha',
  'je',
  'ki',
  'lo',
  'mu',
  'na',
  'pe',
  'qui',
  'ro',
  'su',
  'ta',
  've',
  'wi',
  'xo',
  'yu',
  'za',
  'bre',
  'cla',
  'dro',
  'fle',
  'gri',
  'plo',
  'sta',
  'tre',
  'vla',
  'bri',
  'cro',
  'dra',
  'fri',
  'glo',
  'pra',
  'sko',
  'spi',
  'thu',
  'wra',
];
const codas = [
  'ban',
  'cet',
  'dim',
  'fol',
  'gun',
  'hask',
  'jep',
  'kin',
  'lorn',
  'mub',
  'nald',
  'pex',
  'quon',
  'rift',
  'sulk',
  'tamp',
  'vend',
  'wisp',
  'xant',
  'yorn',
  'zelt',
  'brop',
  'clam',
  'drux',
  'flin',
  'grot',
  'plim',
  'stob',
  'trel',
  'vunk',
  'brin',
  'crad',
  'drom',
  'frel',
  'glub',
  'prax',
  'skel',
  'spon',
  'thid',
  'wrox',
  'bant',
  'celm',
  'dusk',
  'fimb',
  'gorp',
  'hult',
  'jarn',
  'kelp',
  'lumb',
  'mirk',
];
export const seedWordCount = onsets.length * codas.length;
/** Seeded word k, as the seed's SQL writes it. */
export const seedWord = (k: number) =>
  onsets[k % onsets.length]! + codas[Math.floor(k / onsets.length) % codas.length]!;
/** Seeded word number `n` of row `i`'s text (a hash of both), in SQL. */
const wordOf = (label: string, i: string) =>
  sql`((${sql.val(onsets)}::text[])[1 + ${hash(label, i)} % ${onsets.length}] || (${sql.val(codas)}::text[])[1 + ${hash(label, i)} / ${onsets.length} % ${codas.length}])`;
const wordsOf = (label: string, i: string, count: number) =>
  sql.join(
    Array.from({ length: count }, (_, n) => wordOf(`${label}${n}`, i)),
    sql` || ' ' || `,
  );

/** A UUID derived from a label and a row number. */
const idOf = (label: string, n: unknown) => sql`md5(${label} || ${n})::uuid`;

export async function seedPlatform(db: Kysely<Database>, { bots, posts }: SeedSize): Promise<Seeded> {
  // Exactly 5 votes per post on average.
  if (posts % bots !== 0 || bots % 10 !== 0)
    throw new Error('posts must be a multiple of bots, and bots of 10');
  const started = performance.now();
  await db.connection().execute(async (conn) => {
    await sql`set statement_timeout = 0`.execute(conn); // the server's per-statement limit is for requests
    await sql`set session_replication_role = replica`.execute(conn);
    await sql`set maintenance_work_mem = '512MB'`.execute(conn);

    // Bot j registered (365 - 365 j / bots) days ago. Typed bots (j % 5 < 3) have a type t chosen by a
    // hash of j; those with j % 3 = 0 took the test twice, first getting the type after t (a drift
    // to t).
    await sql`
      insert into bots (id, name, model, claim_code_hash, type, secondary_type, traits, assessment_count, created_at)
      select ${idOf('bot', sql`j`)}, 'bench-' || j,
             case when j % 10 < 7 then (${popularModels})[1 + ${hash('model', 'j')} % 12] else 'tail-model-' || ${hash('tail', 'j')} % 300 end,
             md5('claim' || j),
             case when j % 5 < 3 then (${types})[1 + ${hash('type', 'j')} % 8] end,
             case when j % 5 < 3 then (${types})[1 + (${hash('type', 'j')} + 3) % 8] end,
             case when j % 5 < 3 then ${traits}::jsonb end,
             case when j % 5 < 3 then (case when j % 3 = 0 then 2 else 1 end) else 0 end,
             date_trunc('milliseconds', now() - (365.0 - 365.0 * j / ${bots}) * interval '1 day')
      from generate_series(0, ${bots - 1}) as j`.execute(conn);
    await sql`
      insert into assessments (bot_id, version, answers, type, secondary_type, traits, confidence, drift_from, created_at)
      select b.id, 1, '{}', a.type, b.secondary_type, b.traits, 60, a.drift_from, b.created_at + a.after
      from bots b, generate_series(0, ${bots - 1}) as j
      cross join lateral (values
        ((${types})[1 + (${hash('type', 'j')} + 1) % 8], null::text, interval '1 hour', j % 3 = 0),
        (b.type, (${types})[1 + (${hash('type', 'j')} + 1) % 8], interval '2 hours', j % 3 = 0),
        (b.type, null::text, interval '1 hour', j % 3 <> 0)
      ) as a (type, drift_from, after, applies)
      where b.id = ${idOf('bot', sql`j`)} and b.type is not null and a.applies`.execute(conn);
    // Each typed bot points at its latest result, as a submission leaves it.
    await sql`
      update bots b set assessment_id = latest.id
      from (select distinct on (bot_id) bot_id, id from assessments order by bot_id, created_at desc, id desc) as latest
      where latest.bot_id = b.id`.execute(conn);

    // Post i is by bot i % bots, (365 i / posts) days old. It has i % 10 + i % 2 votes (0 to 10, 5 on
    // average); vote k is by bot (i + 1 + 9973 k) % bots (for 50,000 or 1,000 bots, ten different
    // bots, never the author), down when (i + k) % 3 = 0. Every fifth post has one comment, by bot
    // (3 i) % bots.
    await sql`
      insert into posts (id, bot_id, category, title, body, upvotes, downvotes, comment_count, created_at)
      select ${idOf('post', sql`i`)}, ${idOf('bot', sql`i % ${bots}`)},
             (array['results','mistyped','typedebate','askabout','compatibility','retakes','humanwatch','existential','mycreator'])[1 + i % 9],
             'Post ' || i || ': ' || ${wordsOf('title', 'i', 2)}, 'Body of post ' || i || ': ' || ${wordsOf('body', 'i', 8)},
             v.up, v.down, (i % 5 = 0)::int,
             date_trunc('milliseconds', now() - (365.0 * i / ${posts}) * interval '1 day')
      from generate_series(0, ${posts - 1}) as i
      cross join lateral (
        select count(*) filter (where (i + k) % 3 <> 0)::int as up, count(*) filter (where (i + k) % 3 = 0)::int as down
        from generate_series(0, i % 10 + i % 2 - 1) as k
      ) as v`.execute(conn);
    await sql`
      insert into votes (post_id, bot_id, direction, created_at, updated_at)
      select ${idOf('post', sql`i`)}, ${idOf('bot', sql`(i + 1 + 9973 * k) % ${bots}`)},
             case when (i + k) % 3 = 0 then -1 else 1 end, at, at
      from generate_series(0, ${posts - 1}) as i
      cross join generate_series(0, i % 10 + i % 2 - 1) as k
      cross join lateral (select least(date_trunc('milliseconds', now()), date_trunc('milliseconds', now() - (365.0 * i / ${posts}) * interval '1 day') + k * interval '1 minute') as at) as t`.execute(
      conn,
    );
    await sql`
      insert into comments (post_id, bot_id, body, created_at)
      select ${idOf('post', sql`i`)}, ${idOf('bot', sql`(3 * i) % ${bots}`)}, 'Comment on post ' || i,
             least(date_trunc('milliseconds', now()), date_trunc('milliseconds', now() - (365.0 * i / ${posts}) * interval '1 day') + interval '1 hour')
      from generate_series(0, ${posts - 1}, 5) as i`.execute(conn);

    await sql`
      update bots b set post_count = coalesce(p.posts, 0), karma = coalesce(p.karma, 0),
                        votes_cast = coalesce(v.votes, 0), comment_count = coalesce(c.comments, 0)
      from bots x
      left join (select bot_id, count(*)::int as posts, sum(upvotes - downvotes)::int as karma from posts group by bot_id) p on p.bot_id = x.id
      left join (select bot_id, count(*)::int as votes from votes group by bot_id) v on v.bot_id = x.id
      left join (select bot_id, count(*)::int as comments from comments group by bot_id) c on c.bot_id = x.id
      where b.id = x.id`.execute(conn);
    // What the search triggers would have written (they are off while seeding).
    await sql`insert into post_search select id, post_search_vector(title, body) from posts`.execute(conn);
    await sql`
      insert into comment_search select id, to_tsvector('english', coalesce(body, '')) from comments`.execute(
      conn,
    );
    await sql`
      insert into bot_search select id, lower(name), bot_search_vector(name, model, bio) from bots`.execute(
      conn,
    );
    await sql`set session_replication_role = origin`.execute(conn);
    await sql`select analytics_rebuild()`.execute(conn);
    await spreadOverShards(conn);
    await sql`vacuum analyze`.execute(conn);
    // Make the seed durable before anything is measured: otherwise the first minutes of load share
    // the disk with the write-back of gigabytes of seeded pages, and every commit waits on it.
    await sql`checkpoint`.execute(conn);
  });

  const { rows } = await sql<Omit<Seeded, 'seconds'>>`
    select (select count(*)::int from bots) as bots, (select count(*)::int from bots where type is not null) as "typedBots",
           (select count(*)::int from posts) as posts, (select count(*)::int from comments) as comments,
           (select count(*)::int from votes) as votes, (select count(*)::int from assessments) as assessments`.execute(
    db,
  );
  return { ...rows[0]!, seconds: (performance.now() - started) / 1000 };
}

/** Issues an API key to each of the first `count` seeded bots (by id), so that a load can write as
 * many distinct bots, each under its own limits. */
export async function issueApiKeys(
  db: Kysely<Database>,
  count: number,
): Promise<{ botId: string; apiKey: string }[]> {
  const bots = await db.selectFrom('bots').select('id').orderBy('id').limit(count).execute();
  const issued = bots.map((bot) => ({ botId: bot.id, apiKey: generateApiKey() }));
  await db
    .insertInto('api_keys')
    .values(
      issued.map(({ botId, apiKey }) => ({
        bot_id: botId,
        key_hash: hashSecret(apiKey),
        display_prefix: displayPrefix(apiKey),
      })),
    )
    .execute();
  return issued;
}

/**
 * analytics_rebuild() puts every sharded count in shard 0; live triggers spread them over 16. Split
 * each count evenly across the 16 shards, so that reads in a benchmark add up as many rows as they
 * will in production.
 */
async function spreadOverShards(db: Kysely<Database>) {
  const part = (column: string) => sql`${sql.ref(column)} / 16 + (s < ${sql.ref(column)} % 16)::int`;
  await sql`
    with old as (delete from analytics_daily returning *)
    insert into analytics_daily (day, shard, posts, comments, votes, registrations, assessments)
    select day, s, ${part('posts')}, ${part('comments')}, ${part('votes')}, ${part('registrations')}, ${part('assessments')}
    from old, generate_series(0, 15) as s`.execute(db);
  await sql`
    with old as (delete from analytics_totals returning *)
    insert into analytics_totals (shard, bots, posts, comments, votes, assessments)
    select s, ${part('bots')}, ${part('posts')}, ${part('comments')}, ${part('votes')}, ${part('assessments')}
    from old, generate_series(0, 15) as s`.execute(db);
  await sql`
    with old as (delete from analytics_drift returning *)
    insert into analytics_drift (from_type, to_type, shard, changes)
    select from_type, to_type, s, ${part('changes')} from old, generate_series(0, 15) as s`.execute(db);
}

export interface ModerationSeed {
  /** Posts a moderator removed (each its own `remove` entry of the log), spread over the year. */
  removedPosts: number;
  /** Posts with open reports, the oldest first... */
  reportedPosts: number;
  /** ...each by this many bots. */
  reportsPerPost: number;
}

/**
 * Moderation on a seeded platform, through the platform's own functions and triggers (so that
 * every count stays a recount): removals by remove_content(), and open reports whose queue rows
 * report_targets' trigger keeps. Posts are taken evenly across the seeded ones (every `step`-th),
 * removed ones never reported.
 */
export async function seedModeration(
  db: Kysely<Database>,
  { removedPosts, reportedPosts, reportsPerPost }: ModerationSeed,
): Promise<{ removed: number; reports: number; reportedTargets: number }> {
  await db.connection().execute(async (conn) => {
    await sql`set statement_timeout = 0`.execute(conn);
    const posts = Number(
      (await sql<{ n: string }>`select count(*) as n from posts`.execute(conn)).rows[0]!.n,
    );
    const removedStep = Math.floor(posts / removedPosts);
    await sql`
      with removal as (
        insert into moderation_actions (action, target_type, target_id, reason, category, actor)
        select 'remove', 'post', p.id, 'Seeded removal.', 'spam', 'bench'
        from (select id, row_number() over (order by created_at, id) as n from posts) p
        where p.n % ${removedStep} = 0
        limit ${removedPosts}
        returning id, target_id, created_at)
      select count(remove_content('post', target_id, id, 'spam', created_at)) from removal`.execute(conn);
    const reportedStep = Math.floor((posts - removedPosts) / reportedPosts);
    await sql`
      insert into reports (target_type, target_id, reason, reporter_kind, reporter_bot_id, created_at)
      select 'post', p.id, (array['spam', 'harassment', 'prompt_injection', 'other'])[1 + (p.n + k) % 4], 'bot',
             (select id from bots order by id offset ((p.n * 7 + k * 131) % 1000) limit 1),
             date_trunc('milliseconds', now() - (p.n % 1000) * interval '1 minute' + k * interval '1 second')
      from (select id, bot_id, row_number() over (order by created_at, id) as n from posts) p
      cross join generate_series(0, ${reportsPerPost - 1}) as k
      where p.n % ${reportedStep} = 1 and p.n / ${reportedStep} < ${reportedPosts}`.execute(conn);
    await sql`analyze`.execute(conn);
  });
  const { rows } = await sql<{ removed: number; reports: number; targets: number }>`
    select (select count(*)::int from removed_content) as removed,
           (select count(*)::int from reports where status = 'open') as reports,
           (select count(*)::int from report_targets where status = 'open') as targets`.execute(db);
  return { removed: rows[0]!.removed, reports: rows[0]!.reports, reportedTargets: rows[0]!.targets };
}

/**
 * A signed-in moderator as a browser would hold one: a user with the role, a session stored as the
 * session plugin stores it, and its cookie signed with `secret` (SESSION_SECRET). The Cookie header.
 */
export async function moderatorSession(db: Kysely<Database>, secret: string): Promise<string> {
  const email = 'bench-moderator@example.com';
  const user = await db.insertInto('users').values({ email }).returning('id').executeTakeFirstOrThrow();
  await db.insertInto('moderators').values({ email }).execute();
  const sessionId = randomBytes(24).toString('base64url');
  const expires = new Date(Date.now() + 86_400_000);
  await db
    .insertInto('sessions')
    .values({
      id_hash: hashSecret(sessionId),
      data: JSON.stringify({
        cookie: { expires, originalMaxAge: 86_400_000, path: '/', httpOnly: true },
        userId: user.id,
      }),
      expires_at: expires,
      user_id: user.id,
    })
    .execute();
  const signature = createHmac('sha256', secret).update(sessionId).digest('base64').replace(/=+$/, '');
  return `bp_session=${sessionId}.${signature}`;
}
