// Secret scanning: a key of ours found in a text is revoked at once, logged as a moderation
// action and told to its bot.
// The longer story, as it was written then: docs/schema-history.md.
// Frozen: never edit a migration that has shipped; add a new one.
import { sql, type Kysely } from 'kysely';

const actions = (extra: string[]) =>
  sql.raw(
    ['remove', 'restore', 'suspend', 'unsuspend', 'dismiss', 'grant_moderator', 'revoke_moderator', 'grant_appeal', 'deny_appeal', ...extra]
      .map((action) => `'${action}'`)
      .join(', '),
  );

export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    alter table moderation_actions
      drop constraint moderation_actions_action_check,
      add constraint moderation_actions_action_check check (action in (${actions(['key_revoked'])}))`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`
    alter table moderation_actions
      drop constraint moderation_actions_action_check,
      add constraint moderation_actions_action_check check (action in (${actions([])})) not valid`.execute(db);
}
