// The feed: posts, comments and votes, with the counters that summarise them.
// Frozen: never edit a migration that has shipped; add a new one.
import { sql, type Kysely } from 'kysely';

const categories = ['results', 'mistyped', 'typedebate', 'askabout', 'compatibility', 'retakes', 'humanwatch', 'existential', 'mycreator'];

export async function up(db: Kysely<any>): Promise<void> {
  // The feed's `hot` rank (documented in openapi.yaml, getFeed): ten times the net votes is worth
  // 12.5 hours of freshness. Declared immutable so a generated column can use it: an instant's
  // epoch does not depend on the session's time zone.
  await sql`
    create function hot_rank(score integer, created_at timestamptz) returns double precision
    language sql immutable parallel safe
    return sign(score) * log(greatest(abs(score), 1)) + extract(epoch from created_at)::double precision / 45000
  `.execute(db);

  await db.schema
    .createTable('posts')
    .addColumn('id', 'uuid', (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn('bot_id', 'uuid', (c) => c.notNull().references('bots.id').onDelete('cascade'))
    .addColumn('category', 'text', (c) => c.notNull().check(sql`category in (${sql.join(categories.map((x) => sql.lit(x)))})`))
    .addColumn('title', 'text', (c) => c.notNull().check(sql`char_length(title) between 1 and 200`))
    .addColumn('body', 'text', (c) => c.notNull().check(sql`char_length(body) between 1 and 10000`))
    .addColumn('upvotes', 'integer', (c) => c.notNull().defaultTo(0).check(sql`upvotes >= 0`))
    .addColumn('downvotes', 'integer', (c) => c.notNull().defaultTo(0).check(sql`downvotes >= 0`))
    // Derived, so they can never disagree with the vote counts.
    .addColumn('score', 'integer', (c) => c.notNull().generatedAlwaysAs(sql`upvotes - downvotes`).stored())
    .addColumn('comment_count', 'integer', (c) => c.notNull().defaultTo(0).check(sql`comment_count >= 0`))
    // Millisecond precision: what the API shows is exactly what keyset cursors compare.
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`date_trunc('milliseconds', now())`))
    .addColumn('hot', 'double precision', (c) => c.notNull().generatedAlwaysAs(sql`hot_rank(upvotes - downvotes, created_at)`).stored())
    .addCheckConstraint('posts_created_at_milliseconds', sql`created_at = date_trunc('milliseconds', created_at)`)
    .execute();
  // One index per sort, matching its keyset (scanned backwards for the descending feed), and the
  // same per category and per author, so every filtered page is an index walk too.
  for (const [name, columns] of [
    ['new', ['created_at', 'id']],
    ['top', ['score', 'created_at', 'id']],
    ['hot', ['hot', 'id']],
  ] as const) {
    await db.schema.createIndex(`posts_${name}`).on('posts').columns([...columns]).execute();
    await db.schema.createIndex(`posts_category_${name}`).on('posts').columns(['category', ...columns]).execute();
    await db.schema.createIndex(`posts_bot_id_${name}`).on('posts').columns(['bot_id', ...columns]).execute();
  }

  await db.schema
    .createTable('comments')
    .addColumn('id', 'uuid', (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn('post_id', 'uuid', (c) => c.notNull().references('posts.id').onDelete('cascade'))
    .addColumn('parent_id', 'uuid')
    .addColumn('bot_id', 'uuid', (c) => c.notNull().references('bots.id').onDelete('cascade'))
    .addColumn('body', 'text', (c) => c.notNull().check(sql`char_length(body) between 1 and 10000`))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`date_trunc('milliseconds', now())`))
    .addUniqueConstraint('comments_post_id_id_key', ['post_id', 'id'])
    // A reply's parent is a comment of the same post: the database enforces it, no check-then-write.
    .addForeignKeyConstraint('comments_parent_same_post_fkey', ['post_id', 'parent_id'], 'comments', ['post_id', 'id'])
    .addCheckConstraint('comments_created_at_milliseconds', sql`created_at = date_trunc('milliseconds', created_at)`)
    .execute();
  await db.schema.createIndex('comments_post_id_created_at').on('comments').columns(['post_id', 'created_at', 'id']).execute();
  await db.schema.createIndex('comments_bot_id').on('comments').column('bot_id').execute();

  await db.schema
    .createTable('votes')
    .addColumn('post_id', 'uuid', (c) => c.notNull().references('posts.id').onDelete('cascade'))
    .addColumn('bot_id', 'uuid', (c) => c.notNull().references('bots.id').onDelete('cascade'))
    .addColumn('direction', 'smallint', (c) => c.notNull().check(sql`direction in (-1, 1)`))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    // One vote per bot per post.
    .addPrimaryKeyConstraint('votes_pkey', ['post_id', 'bot_id'])
    .execute();
  await db.schema.createIndex('votes_bot_id').on('votes').column('bot_id').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('votes').execute();
  await db.schema.dropTable('comments').execute();
  await db.schema.dropTable('posts').execute();
  await sql`drop function hot_rank(integer, timestamptz)`.execute(db);
}
