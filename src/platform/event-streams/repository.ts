// SQL of the stream slots: the streams open now, per holder, across instances (the table
// event_stream_slots; take_stream_slots() in ./sql/take_stream_slots.sql).
import { sql } from 'kysely';
import type { Db } from '../db/schema.js';

/** What holds a stream's slot, and how many such slots it may hold at once. */
export interface SlotHolder {
  /** `bot:<id>` or `ip:<address>`. */
  holder: string;
  max: number;
}

/**
 * Takes a slot `id` of every holder at once, or none: undefined when taken, otherwise the first
 * holder that holds its `max` already, and the milliseconds until its least recently marked slot
 * would lapse (were its instance gone).
 */
export async function takeStreamSlots(
  db: Db,
  slot: { id: string; holders: SlotHolder[]; instanceId: string; lapseMs: number },
): Promise<{ full: SlotHolder; retryAfterMs: number } | undefined> {
  const { rows } = await sql<{ full_holder: string; retry_after_ms: number }>`
    select * from take_stream_slots(${slot.id}, ${slot.holders.map((h) => h.holder)}::text[],
      ${slot.holders.map((h) => h.max)}::integer[], ${slot.instanceId}, ${slot.lapseMs}::integer)`.execute(
    db,
  );
  const [refused] = rows;
  if (!refused) return undefined;
  return {
    full: slot.holders.find((h) => h.holder === refused.full_holder)!,
    retryAfterMs: refused.retry_after_ms,
  };
}

export async function releaseStreamSlots(db: Db, ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  await db.deleteFrom('event_stream_slots').where('id', 'in', ids).execute();
}

/**
 * Marks the slots this instance holds alive, and deletes its other rows (a release that failed, a
 * slot whose taking was answered to nobody): in one statement.
 */
export async function markStreamSlotsAlive(db: Db, instanceId: string, held: string[]): Promise<void> {
  await sql`
    with gone as (
      delete from event_stream_slots where instance_id = ${instanceId} and not (id = any(${held}::uuid[])))
    update event_stream_slots set alive_at = now() where id = any(${held}::uuid[])`.execute(db);
}

export async function releaseInstanceSlots(db: Db, instanceId: string): Promise<void> {
  await db.deleteFrom('event_stream_slots').where('instance_id', '=', instanceId).execute();
}
