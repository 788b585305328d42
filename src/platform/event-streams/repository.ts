// SQL of the stream slots: the streams open now, per holder, across instances (the event-streams
// migration's event_stream_slots and take_stream_slot()).
import { sql } from 'kysely';
import type { Db } from '../db/schema.js';

/**
 * Takes a slot for `holder` unless it holds `max` already: undefined when taken, otherwise the
 * milliseconds until its least recently marked slot would lapse (were its instance gone).
 */
export async function takeStreamSlot(
  db: Db,
  slot: { id: string; holder: string; instanceId: string; max: number; lapseMs: number },
): Promise<number | undefined> {
  const { rows } = await sql<{ retry_after_ms: number | null }>`
    select take_stream_slot(${slot.id}, ${slot.holder}, ${slot.instanceId}, ${slot.max}::integer,
      ${slot.lapseMs}::integer) as retry_after_ms`.execute(db);
  return rows[0]?.retry_after_ms ?? undefined;
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
