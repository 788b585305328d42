// The stream slots' SQL: counted per holder across instances, a stream's holders taken together or
// not at all, a lapsed slot no longer counted, and an instance's keep-alive keeping only the slots
// it holds (a row whose release failed goes).
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import { sql } from 'kysely';
import {
  markStreamSlotsAlive,
  releaseStreamSlots,
  takeStreamSlots,
} from '../../../src/platform/event-streams/repository.js';
import { useTestApp } from '../../helpers/app.js';

const t = useTestApp();
const take = async (holder: string, instanceId: string, id = randomUUID()) =>
  (await takeStreamSlots(t.db, { id, holders: [{ holder, max: 2 }], instanceId, lapseMs: 45_000 }))
    ?.retryAfterMs;
const ids = async () =>
  (await t.db.selectFrom('event_stream_slots').select('id').orderBy('id').execute()).map((row) => row.id);

describe('stream slots', () => {
  test('at most `max` per holder, whatever instance takes them; Retry-After is when the oldest would lapse', async () => {
    const [a, b] = [randomUUID(), randomUUID()];
    assert.equal(await take('bot:x', a), undefined);
    assert.equal(await take('bot:x', b), undefined);
    const retryMs = await take('bot:x', a);
    assert.ok(retryMs !== undefined && retryMs > 40_000 && retryMs <= 45_000, `${retryMs}`);
    assert.equal(await take('bot:y', a), undefined, 'another holder is not held back');
  });

  test('a stream takes a slot of each holder at once, or of none: the full one is named', async () => {
    const instance = randomUUID();
    const both = (id = randomUUID()) =>
      takeStreamSlots(t.db, {
        id,
        holders: [
          { holder: 'bot:z', max: 3 },
          { holder: 'ip:9', max: 2 },
        ],
        instanceId: instance,
        lapseMs: 45_000,
      });
    const first = randomUUID();
    assert.equal(await both(first), undefined);
    assert.equal(await both(), undefined);
    const refused = await both();
    assert.deepEqual(refused?.full, { holder: 'ip:9', max: 2 });
    // Nothing of the refused one was taken: the bot still holds two, the address two.
    const { rows } = await sql<{ holder: string; n: number }>`
      select holder, count(*)::int as n from event_stream_slots group by holder order by holder`.execute(
      t.db,
    );
    assert.deepEqual(rows, [
      { holder: 'bot:z', n: 2 },
      { holder: 'ip:9', n: 2 },
    ]);
    // Releasing a stream frees both of its slots.
    await releaseStreamSlots(t.db, [first]);
    assert.equal(await both(), undefined);
  });

  test('a slot not marked alive for 45 s no longer counts; a released one frees at once', async () => {
    const instance = randomUUID();
    const first = randomUUID();
    await take('ip:1', instance, first);
    await take('ip:1', instance);
    assert.notEqual(await take('ip:1', instance), undefined);
    await releaseStreamSlots(t.db, [first]);
    assert.equal(await take('ip:1', instance), undefined);
    await sql`update event_stream_slots set alive_at = now() - interval '46 seconds'`.execute(t.db);
    assert.equal(await take('ip:1', instance), undefined);
    assert.equal((await ids()).length, 1, 'the lapsed ones are gone');
  });

  test("an instance's keep-alive marks the slots it holds and deletes its others, not other instances'", async () => {
    const [mine, other] = [randomUUID(), randomUUID()];
    const [held, orphan, theirs] = [randomUUID(), randomUUID(), randomUUID()];
    await take('bot:a', mine, held);
    await take('bot:b', mine, orphan);
    await take('bot:c', other, theirs);
    await sql`update event_stream_slots set alive_at = now() - interval '30 seconds'`.execute(t.db);
    await markStreamSlotsAlive(t.db, mine, [held]);
    assert.deepEqual(await ids(), [held, theirs].sort());
    const { rows } = await sql<{ id: string; fresh: boolean }>`
      select id, alive_at > now() - interval '1 second' as fresh from event_stream_slots`.execute(t.db);
    assert.deepEqual(Object.fromEntries(rows.map((row) => [row.id, row.fresh])), {
      [held]: true,
      [theirs]: false,
    });
  });
});
