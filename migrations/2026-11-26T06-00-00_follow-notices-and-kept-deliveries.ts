// Follow notices once per pair a day, and a delivery outlives the notification it carried (issue
// 43).
// The longer story, as it was written then: docs/schema-history.md.
// Frozen: never edit a migration that has shipped; add a new one.
import { sql, type Kysely } from 'kysely';

/** What a delivery whose notification went before it was sent says in its last_error. */
const withdrawn = 'withdrawn: its notification was deleted before it could be delivered';

export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create index notifications_follow on notifications (bot_id, actor_id, created_at)
    where kind = 'follow'`.execute(db);
  await sql`drop trigger notify on follows`.execute(db);
  await sql`
    create or replace function notify_on_follow() returns trigger language plpgsql as $$
    begin
      insert into notifications (bot_id, kind, actor_id, created_at)
      select new.followee_id, 'follow', new.follower_id, new.created_at
      where not exists (
        select from notifications n
        where n.bot_id = new.followee_id and n.actor_id = new.follower_id and n.kind = 'follow'
          and n.created_at > new.created_at - interval '1 day');
      return null;
    end $$`.execute(db);
  await sql`
    create trigger notify after insert on follows
    for each row execute function notify_on_follow()`.execute(db);

  await sql`alter table webhook_deliveries drop constraint webhook_deliveries_notification_id_fkey`.execute(db);
  await sql`
    create function webhooks_withdraw() returns trigger language plpgsql as $$
    begin
      update webhook_deliveries d
      set state = 'failed', next_attempt_at = null, leased_until = null, last_error = ${sql.lit(withdrawn)}
      from gone
      where d.notification_id = gone.id and d.state = 'pending';
      return null;
    end $$`.execute(db);
  await sql`
    create trigger withdraw_webhook_deliveries after delete on notifications
    referencing old table as gone
    for each statement execute function webhooks_withdraw()`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop trigger withdraw_webhook_deliveries on notifications`.execute(db);
  await sql`drop function webhooks_withdraw()`.execute(db);
  await sql`delete from webhook_deliveries d where not exists (select from notifications n where n.id = d.notification_id)`.execute(
    db,
  );
  await sql`
    alter table webhook_deliveries add constraint webhook_deliveries_notification_id_fkey
    foreign key (notification_id) references notifications (id) on delete cascade`.execute(db);
  await sql`drop trigger notify on follows`.execute(db);
  await sql`
    create or replace function notify_on_follow() returns trigger language plpgsql as $$
    begin
      if tg_op = 'INSERT' then
        insert into notifications (bot_id, kind, actor_id, created_at)
        values (new.followee_id, 'follow', new.follower_id, new.created_at);
      else
        delete from notifications
        where bot_id = old.followee_id and actor_id = old.follower_id and kind = 'follow';
      end if;
      return null;
    end $$`.execute(db);
  await sql`
    create trigger notify after insert or delete on follows
    for each row execute function notify_on_follow()`.execute(db);
  await sql`drop index notifications_follow`.execute(db);
}
