// A bot's suspensions found without reading the community bans beside them (trust_standing());
// communities found by the words of their texts through an index, not a scan per word; the platform
// moderators' edit of a community's texts and removal of one of its moderators, in the log;
// recompute_trust() told which bots a claim took off probation; a moderator's name for the console,
// which the operator may give.
// Frozen: never edit a migration that has shipped; add a new one.
import { sql, type Kysely } from 'kysely';

const actionsBefore = `'remove', 'restore', 'suspend', 'unsuspend', 'dismiss', 'grant_moderator', 'revoke_moderator',
  'grant_appeal', 'deny_appeal', 'key_revoked', 'pin', 'unpin', 'ban', 'unban', 'close', 'reopen'`;
const communityActsBefore = `'pin', 'unpin', 'ban', 'unban', 'close', 'reopen'`;

export async function up(db: Kysely<any>): Promise<void> {
  await sql`create index moderation_actions_suspensions on moderation_actions (target_id, created_at)
    where action = 'suspend'`.execute(db);
  // Stored, not an index on the expression: a list read along its order checks each row's words
  // without making them again (a tenth of the time per row).
  await sql`alter table communities add column words tsvector not null
    generated always as (to_tsvector('simple', name || ' ' || title || ' ' || description)) stored`.execute(db);
  await sql`create index communities_words on communities using gin (words)`.execute(db);
  await sql`
    alter table moderation_actions
      drop constraint moderation_actions_action_check,
      add constraint moderation_actions_action_check
        check (action in (${sql.raw(actionsBefore)}, 'edit', 'remove_moderator')),
      drop constraint moderation_actions_community_acts,
      add constraint moderation_actions_community_acts
        check (action not in (${sql.raw(communityActsBefore)}, 'edit', 'remove_moderator') or community_id is not null)`.execute(
    db,
  );
  await sql`alter table moderators add column display_name text
    check (char_length(display_name) between 1 and 60)`.execute(db);
  // Its signature changes (the bots whose probation a claim ended); its definition file makes the new one.
  await sql`drop function if exists recompute_trust(uuid[], integer, timestamptz)`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`alter table moderators drop column display_name`.execute(db);
  await sql`
    alter table moderation_actions
      drop constraint moderation_actions_community_acts,
      add constraint moderation_actions_community_acts
        check (action not in (${sql.raw(communityActsBefore)}) or community_id is not null) not valid,
      drop constraint moderation_actions_action_check,
      add constraint moderation_actions_action_check check (action in (${sql.raw(actionsBefore)})) not valid`.execute(
    db,
  );
  await sql`alter table communities drop column words`.execute(db);
  await sql`drop index moderation_actions_suspensions`.execute(db);
}
