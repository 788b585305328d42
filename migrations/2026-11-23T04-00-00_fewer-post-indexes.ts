// Three post sort indexes dropped that served no query better than another: every post write
// paid for them.
// The longer story, as it was written then: bench/results/migrations.md.
// Frozen: never edit a migration that has shipped; add a new one.
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
