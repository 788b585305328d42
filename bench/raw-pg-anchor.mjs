// The raw-driver anchors: minimal Fastify 5 routes over `pg`, each one named prepared statement and
// nothing else (no key, no validation, no limiter, no ETag, no hooks):
// - the feed's first page (GET /api/feed?sort=new), so "our feed page ÷ this" says how much of the
//   driver's ceiling the platform keeps;
// - a `hot` page after a cursor (GET /api/feed?sort=hot&cursor=...), read as our server reads it,
//   by feed_page(): the ceiling of a deep page, which is more work for the database than page 1;
// - createPost's insert and voteOnPost's cast_vote() for the bot named by `x-bench-bot`, so the
//   database's own cost of each write (its triggers, indexes and commit) is measured beside ours.
// bench/run.ts measures them in the same run as our server. Plain JavaScript, as hello-world.mjs,
// started in its own process on the PORT and DATABASE_URL it is given.
import { Buffer } from 'node:buffer';
import Fastify from 'fastify';
import pg from 'pg';

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 });
// The page and one more row (to know whether there is a next one), its authors joined after the cut.
const firstPage = {
  name: 'anchor_feed_new',
  text: `select p.id, p.bot_id, p.category, p.title, p.body, p.score, p.upvotes, p.downvotes,
           p.comment_count, p.created_at, b.name, b.model, b.type, b.creator_user_id is not null as verified
         from (select * from posts order by created_at desc, id desc limit 21) p
         join bots b on b.id = p.bot_id
         order by p.created_at desc, p.id desc`,
};

// The post as createPost inserts it (without the author join, which the anchor's reply leaves out).
const insertPost = {
  name: 'anchor_insert_post',
  text: `insert into posts (bot_id, category, title, body) values ($1, $2, $3, $4) returning id, created_at`,
};
const castVote = {
  name: 'anchor_cast_vote',
  text: `select outcome, upvotes, downvotes, score from cast_vote($1, $2, $3::smallint)`,
};

const app = Fastify({ logger: false });
app.post('/api/feed/posts', async (request, reply) => {
  const { category, title, body } = request.body;
  const { rows } = await pool.query(insertPost, [request.headers['x-bench-bot'], category, title, body]);
  return reply.code(201).send({ id: rows[0].id, created_at: rows[0].created_at.toISOString() });
});
app.post('/api/feed/posts/:id/vote', async (request) => {
  const direction = request.body.direction === 'up' ? 1 : -1;
  const { rows } = await pool.query(castVote, [request.params.id, request.headers['x-bench-bot'], direction]);
  return rows[0];
});
// The page after a cursor of `hot`, as our server reads it (src/feed/repository/posts.ts, feedPageCall),
// its author's columns named as firstPage names them.
const hotPageAfter = {
  name: 'anchor_feed_hot_after',
  text: `select id, bot_id, category, title, body, score, upvotes, downvotes, comment_count, created_at, hot,
           author_name as name, author_model as model, author_type as type, author_verified as verified
         from feed_page('hot', null, null, null, null, null, $1, null, null, $2, 21)`,
};

/** The first 20 rows as a page, with the cursor `keyOf` makes from its last row if there are more. */
function pageOf(rows, keyOf) {
  const page = rows.slice(0, 20);
  const last = page.at(-1);
  return {
    items: page.map((row) => ({
      id: row.id,
      author: { id: row.bot_id, name: row.name, model: row.model, type: row.type, verified: row.verified },
      category: row.category,
      title: row.title,
      body: row.body,
      score: row.score,
      upvotes: row.upvotes,
      downvotes: row.downvotes,
      comment_count: row.comment_count,
      created_at: row.created_at.toISOString(),
    })),
    next_cursor:
      rows.length > 20 && last ? Buffer.from(JSON.stringify(keyOf(last))).toString('base64url') : null,
  };
}

app.get('/api/feed', async (request) => {
  const { sort, cursor } = request.query;
  if (sort === 'hot' && cursor) {
    const [, hot, id] = JSON.parse(Buffer.from(cursor, 'base64url').toString());
    const { rows } = await pool.query(hotPageAfter, [hot, id]);
    return pageOf(rows, (last) => ['feed:hot', last.hot, last.id]);
  }
  const { rows } = await pool.query(firstPage);
  return pageOf(rows, (last) => ['feed:new', last.created_at.toISOString(), last.id]);
});
await app.listen({ host: process.env.HOST ?? '127.0.0.1', port: Number(process.env.PORT ?? 0) });
process.on('SIGTERM', () => void app.close().then(() => pool.end().then(() => process.exit(0))));
