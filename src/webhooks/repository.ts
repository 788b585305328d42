// SQL of webhooks and their outbox. Deliveries are written by the database's trigger with each
// notification (./sql/webhooks_enqueue.sql); workers lease the due ones here.
import { sql } from 'kysely';
import type { NotificationKind, Webhook, WebhookDelivery } from '../platform/spec/schemas.js';
import { afterKey, creationOrder, literalRows, type CursorKey, type Keyset } from '../platform/db/keyset.js';
import type { Db } from '../platform/db/schema.js';

export async function upsertWebhook(
  db: Db,
  botId: string,
  webhook: { url: string; events: NotificationKind[]; secret: string },
) {
  return db
    .insertInto('webhooks')
    .values({ bot_id: botId, ...webhook })
    .onConflict((conflict) =>
      conflict.column('bot_id').doUpdateSet({
        url: webhook.url,
        events: webhook.events,
        secret: webhook.secret,
        created_at: sql<Date>`now()`,
        failing_since: null,
        disabled_at: null,
      }),
    )
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function findWebhook(db: Db, botId: string) {
  return db.selectFrom('webhooks').selectAll().where('bot_id', '=', botId).executeTakeFirst();
}
type WebhookRow = NonNullable<Awaited<ReturnType<typeof findWebhook>>>;

/** Deletes the bot's webhook and, by the foreign key, every delivery of it; whether there was one. */
export async function deleteWebhookOf(db: Db, botId: string): Promise<boolean> {
  const result = await db.deleteFrom('webhooks').where('bot_id', '=', botId).executeTakeFirst();
  return result.numDeletedRows > 0n;
}

export function toWebhook(row: WebhookRow): Webhook {
  return {
    url: row.url,
    events: row.events,
    created_at: row.created_at.toISOString(),
    disabled_at: row.disabled_at?.toISOString() ?? null,
    failing_since: row.failing_since?.toISOString() ?? null,
  };
}

function selectDeliveries(db: Db) {
  return db.selectFrom('webhook_deliveries').selectAll();
}
type DeliveryRow = Awaited<ReturnType<ReturnType<typeof selectDeliveries>['executeTakeFirstOrThrow']>>;

/** A bot's deliveries page newest first, ties by id. */
export const deliveryKeyset: Keyset<DeliveryRow> = creationOrder('webhook-deliveries');

export async function listDeliveries(db: Db, botId: string, limit: number, after: CursorKey | undefined) {
  let query = selectDeliveries(db).where('bot_id', '=', botId);
  if (after) query = query.where(afterKey(['created_at', 'id'], 'desc', after));
  return query
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(sql.lit(literalRows(limit)))
    .execute();
}

export function toDelivery(row: DeliveryRow): WebhookDelivery {
  const at = (value: Date | null) => value?.toISOString() ?? null;
  return {
    id: row.id,
    event_type: row.event_type as WebhookDelivery['event_type'],
    notification_id: row.notification_id,
    state: row.state,
    attempts: row.attempts,
    last_status_code: row.last_status_code,
    last_error: row.last_error,
    last_attempt_at: at(row.last_attempt_at),
    next_attempt_at: at(row.next_attempt_at),
    delivered_at: at(row.delivered_at),
    created_at: row.created_at.toISOString(),
  };
}

/** A delivery a worker holds the lease of, with what it needs to make the attempt. */
export interface LeasedDelivery {
  id: string;
  bot_id: string;
  notification_id: string;
  event_type: string;
  /** This attempt's number, from 1. */
  attempts: number;
  url: string;
  secret: string;
  /** Its webhook's last attempt took longer than a second: leased in the slow lane. */
  slow: boolean;
}

/** How many deliveries a worker has room for, in each lane. */
export interface LaneRoom {
  /** Webhooks whose last attempt answered within a second (or that have had none). */
  quick: number;
  /** Webhooks whose last attempt took longer: a receiver that hangs or crawls. */
  slow: number;
}

/**
 * Leases due deliveries for `leaseMs`, up to `room` in each lane, at most one per webhook: each with
 * its webhook (`webhooks.leased_until`), whose row is locked to take it (`skip locked`: concurrent
 * workers take different webhooks and never wait on each other; one leased meanwhile fails the
 * recheck), and the attempt is counted now. A webhook never has two attempts in flight, whichever
 * workers ask: a receiver that hangs holds one place, not every worker's. Each webhook's next
 * delivery (its pending one due first, ties by id) goes, the webhooks waiting longest first, in its
 * lane: a slow webhook (its last attempt took over a second) only ever takes a place of the slow
 * lane, so however many receivers hang, and however long their backlogs and retries, the others'
 * deliveries start as soon as they are due. A worker that dies mid-attempt leaves both leases to
 * run out; the delivery is then due again, for whichever worker comes first.
 *
 * The webhooks with pending deliveries are found by a skip scan of
 * webhook_deliveries_next_per_webhook (one probe each, those waiting for a retry included), and
 * each one's next delivery is the first entry under its bot_id: the cost grows with the webhooks
 * that have something pending, never with a backlog behind one of them.
 */
export async function leaseDueDeliveries(db: Db, room: LaneRoom, leaseMs: number): Promise<LeasedDelivery[]> {
  const leasedUntil = sql`now() + make_interval(secs => ${leaseMs / 1000})`;
  const lane = (slow: boolean, count: number) => sql`
      select w.bot_id, n.id
      from webhooks w join next_deliveries n on n.bot_id = w.bot_id
      where (w.leased_until is null or w.leased_until < now()) and w.slow = ${slow}
      order by n.next_attempt_at, n.id
      limit ${Math.max(0, count)}
      for update of w skip locked`;
  const { rows } = await sql<LeasedDelivery>`
    with recursive pending_webhooks (bot_id) as (
      (select bot_id from webhook_deliveries where state = 'pending' order by bot_id limit 1)
      union all
      select (select d.bot_id from webhook_deliveries d
              where d.state = 'pending' and d.bot_id > p.bot_id order by d.bot_id limit 1)
      from pending_webhooks p where p.bot_id is not null),
    next_deliveries as (
      select p.bot_id, next.id, next.next_attempt_at
      from pending_webhooks p
      cross join lateral (
        select d.id, d.next_attempt_at from webhook_deliveries d
        where d.bot_id = p.bot_id and d.state = 'pending'
        order by d.next_attempt_at, d.id limit 1) next
      where p.bot_id is not null and next.next_attempt_at <= now()),
    quick as (${lane(false, room.quick)}),
    slow as (${lane(true, room.slow)}),
    chosen as (select * from quick union all select * from slow),
    leased_webhooks as (
      update webhooks w set leased_until = ${leasedUntil} from chosen where w.bot_id = chosen.bot_id)
    update webhook_deliveries d
    set leased_until = ${leasedUntil}, attempts = d.attempts + 1, last_attempt_at = now()
    from chosen, webhooks w
    where d.id = chosen.id and w.bot_id = d.bot_id and d.state = 'pending'
    returning d.id, d.bot_id, d.notification_id, d.event_type, d.attempts, w.url, w.secret, w.slow`.execute(
    db,
  );
  return rows;
}

/**
 * A 2xx: the delivery is done (even if its notification was deleted meanwhile: it was sent), and
 * its webhook is not failing, nor leased any more; slow if the answer took over a second.
 */
export async function recordDelivered(
  db: Db,
  delivery: LeasedDelivery,
  status: number,
  slow: boolean,
): Promise<void> {
  await sql`
    with done as (
      update webhook_deliveries
      set state = 'delivered', delivered_at = now(), next_attempt_at = null, leased_until = null,
          last_status_code = ${status}, last_error = null
      where id = ${delivery.id})
    update webhooks set failing_since = null, leased_until = null, slow = ${slow}
    where bot_id = ${delivery.bot_id}`.execute(db);
}

/**
 * An attempt without a 2xx: retried after `retryInMs`, or failed for good when that is null (not
 * one withdrawn meanwhile, its notification deleted during the attempt). Its webhook is no longer
 * leased; it is failing since its first failure after a success, and one failing for
 * `disableAfterMs` is disabled, its deliveries still due failing with it. It is slow if the attempt
 * took over a second (a timeout always did).
 */
export async function recordFailedAttempt(
  db: Db,
  delivery: LeasedDelivery,
  outcome: { status: number | null; error: string | null },
  retryInMs: number | null,
  disableAfterMs: number,
  slow: boolean,
): Promise<{ disabled: boolean }> {
  const { rows } = await sql<{ disabled: boolean }>`
    with attempt as (
      update webhook_deliveries
      set state = ${retryInMs === null ? 'failed' : 'pending'},
          next_attempt_at = ${retryInMs === null ? null : sql`now() + make_interval(secs => ${retryInMs / 1000})`},
          leased_until = null, last_status_code = ${outcome.status}, last_error = ${outcome.error}
      where id = ${delivery.id} and state = 'pending'
      returning bot_id),
    hook as (
      update webhooks
      set leased_until = null, slow = ${slow},
          failing_since = case when exists (select from attempt) then coalesce(failing_since, now())
            else failing_since end,
          disabled_at = case
            when exists (select from attempt) and disabled_at is null
              and coalesce(failing_since, now()) <= now() - make_interval(secs => ${disableAfterMs / 1000})
            then now() else disabled_at end
      where bot_id = ${delivery.bot_id}
      returning bot_id, disabled_at is not null as disabled),
    given_up as (
      update webhook_deliveries
      set state = 'failed', next_attempt_at = null, leased_until = null
      where bot_id in (select bot_id from hook where disabled) and state = 'pending' and id <> ${delivery.id})
    select coalesce((select disabled from hook), false) as disabled`.execute(db);
  return { disabled: rows[0]?.disabled ?? false };
}

/** A leased delivery that was withdrawn before its attempt (its notification deleted): its webhook is free again. */
export async function releaseWebhook(db: Db, delivery: LeasedDelivery): Promise<void> {
  await sql`update webhooks set leased_until = null where bot_id = ${delivery.bot_id}`.execute(db);
}

/** Attempts a shutting-down worker did not finish: due again at once, as if never made, their webhooks free. */
export async function releaseLeases(db: Db, deliveries: LeasedDelivery[]): Promise<void> {
  if (deliveries.length === 0) return;
  await sql`
    with released as (
      update webhook_deliveries
      set leased_until = null, attempts = attempts - 1, next_attempt_at = now()
      where id = any(${deliveries.map((d) => d.id)}::uuid[]) and state = 'pending')
    update webhooks set leased_until = null
    where bot_id = any(${deliveries.map((d) => d.bot_id)}::uuid[])`.execute(db);
}

/** The outbox for /metrics: deliveries pending, and how long the oldest due one has waited. */
export async function outboxState(db: Db): Promise<{ pending: number; oldestDueSeconds: number }> {
  const { rows } = await sql<{ pending: string; oldest_due_seconds: number | null }>`
    select count(*) as pending,
           extract(epoch from now() - min(next_attempt_at) filter (where next_attempt_at <= now()))::float8 as oldest_due_seconds
    from webhook_deliveries where state = 'pending'`.execute(db);
  return { pending: Number(rows[0]!.pending), oldestDueSeconds: rows[0]!.oldest_due_seconds ?? 0 };
}

/** Deletes deliveries done (delivered or failed) more than `days` days ago. */
export async function pruneDeliveries(db: Db, days: number): Promise<number> {
  const result = await db
    .deleteFrom('webhook_deliveries')
    .where('state', '<>', 'pending')
    .where('created_at', '<', sql<Date>`now() - make_interval(days => ${days})`)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
