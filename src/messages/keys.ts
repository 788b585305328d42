// The conversations' data keys under a new master key (`npm run admin -- rotate-dm-key`): each key
// wrapped by another master key than the first is unwrapped by it and wrapped by the first, in
// batches, while the server runs (a batch holds its rows' locks for as long as it takes to rewrap
// them; a message sent meanwhile waits that long). No message is encrypted again: its data key is
// the same key, only wrapped anew.
import type { Db } from '../platform/db/schema.js';
import { MasterKeyMissing, type MasterKey, unwrapDataKey, wrapDataKey } from './encryption.js';
import { forgottenMaster } from './repository.js';

export interface Rewrapped {
  /** Keys now wrapped by the first master key that were wrapped by another. */
  rewrapped: number;
  /** Fingerprints of the master keys that wrapped keys and were not given: those keys stay as they are. */
  missing: string[];
  /**
   * Keys still wrapped by another master key than the first once it is done: those of `missing`,
   * and any a server not yet given the new key wrapped meanwhile (run it again once every instance
   * has the new key first).
   */
  left: number;
}

const batchSize = 500;

export async function rewrapDataKeys(db: Db, masters: MasterKey[]): Promise<Rewrapped> {
  const current = masters[0]!.id;
  const missing = new Set<string>();
  let rewrapped = 0;
  for (;;) {
    const done = await db.transaction().execute(async (trx) => {
      let query = trx
        .selectFrom('conversations')
        .select(['id', 'data_key', 'data_key_master'])
        .where('data_key_master', 'not in', [current, forgottenMaster])
        .orderBy('id')
        .limit(batchSize)
        .forUpdate();
      if (missing.size > 0) query = query.where('data_key_master', 'not in', [...missing]);
      const rows = await query.execute();
      for (const row of rows) {
        let key: Buffer;
        try {
          key = unwrapDataKey(masters, { wrapped: row.data_key, masterId: row.data_key_master }, row.id);
        } catch (error) {
          if (!(error instanceof MasterKeyMissing)) throw error;
          missing.add(error.masterId);
          continue;
        }
        const wrapped = wrapDataKey(masters, key, row.id);
        await trx
          .updateTable('conversations')
          .set({ data_key: wrapped.wrapped, data_key_master: wrapped.masterId })
          .where('id', '=', row.id)
          .execute();
        rewrapped++;
      }
      return rows.length === 0;
    });
    if (done) break;
  }
  // Counted afresh, not taken from the batches: a row changed while a batch waited for it is not
  // in that batch, and an instance still wrapping with the old key may have made new ones.
  const { left } = await db
    .selectFrom('conversations')
    .select((eb) => eb.fn.countAll<string>().as('left'))
    .where('data_key_master', 'not in', [current, forgottenMaster])
    .executeTakeFirstOrThrow();
  return { rewrapped, missing: [...missing].sort(), left: Number(left) };
}
