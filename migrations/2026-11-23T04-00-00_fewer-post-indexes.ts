// Every post write (a new post, and each vote, which moves its score and hot rank) inserts into
// every index on posts. Three of the nine sort indexes served no query better than another index
// does (bench/results/post-indexes.md shows the plans of every posts query, before and after):
// - by author, `top` and `hot` pages read the author's posts through posts_bot_id_new and sort
//   them (the planner did so even with the two indexes there);
// - by category, `new` pages walk posts_new and skip other categories: creation order does not
//   depend on the category, so a page reads about nine times its rows, a few hundred index entries.
// posts_category_top stays: the best-scored posts of a category may sit far down posts_top (the
// plans show a page reading 27,000 entries without it). Kept with it: posts_new, posts_top,
// posts_hot, posts_category_hot and posts_bot_id_new (a bot's posts, and the foreign key's cascade
// when a bot is deleted). Frozen: never edit a migration that has shipped; add a new one.
import type { Kysely } from 'kysely';

const dropped = [
  ['posts_category_new', ['category', 'created_at', 'id']],
  ['posts_bot_id_top', ['bot_id', 'score', 'created_at', 'id']],
  ['posts_bot_id_hot', ['bot_id', 'hot', 'id']],
] as const;

export async function up(db: Kysely<any>): Promise<void> {
  for (const [name] of dropped) await db.schema.dropIndex(name).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const [name, columns] of dropped)
    await db.schema.createIndex(name).on('posts').columns([...columns]).execute();
}
