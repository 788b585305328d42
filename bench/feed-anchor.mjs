// The raw-driver anchor: the feed's first page (GET /api/feed?sort=new) served by a minimal Fastify 5
// route over `pg` with one named prepared statement, and nothing else: no validation, no limiter,
// no ETag, no hooks. bench/run.ts measures it in the same run as our server, so "our feed page ÷
// this" says how much of the driver's ceiling the platform keeps. Plain JavaScript, as
// hello-world.mjs, started in its own process on the PORT and DATABASE_URL it is given.
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

const app = Fastify({ logger: false });
app.get('/api/feed', async () => {
  const { rows } = await pool.query(firstPage);
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
      rows.length > 20 && last
        ? Buffer.from(JSON.stringify(['feed:new', last.created_at.toISOString(), last.id])).toString(
            'base64url',
          )
        : null,
  };
});
await app.listen({ host: process.env.HOST ?? '127.0.0.1', port: Number(process.env.PORT ?? 0) });
process.on('SIGTERM', () => void app.close().then(() => pool.end().then(() => process.exit(0))));
