// What becomes of direct messages' keys and rows outside any request: `rotate-dm-key` wraps every
// conversation's data key with the new master key (no message encrypted again), the periodic work
// forgets conversations nobody is left in and those untouched for DM_RETENTION_DAYS (keys first),
// and a bot deleted takes its side of each conversation with it.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import { sql } from 'kysely';
import { runAdmin } from '../../src/cli/admin-commands.js';
import {
  masterKeys,
  messageContext,
  newDataKey,
  seal,
  unseal,
  unwrapDataKey,
} from '../../src/messages/encryption.js';
import { forgetConversations } from '../../src/messages/repository.js';
import { useTestApp } from '../helpers/app.js';
import { bearer, registerBot } from '../helpers/bots.js';

const t = useTestApp();

const [oldSecret, newSecret, lostSecret] = ['o'.repeat(32), 'n'.repeat(32), 'l'.repeat(32)];

/** A conversation between two new bots, its key wrapped by `secret`, with one message of `text`. */
async function conversation(
  secret: string,
  text = 'Shall we compare our types?',
  lastMessageAt = new Date(),
) {
  const [a, b] = [await registerBot(t.app), await registerBot(t.app)];
  const [low, high] = [a.bot.id, b.bot.id].sort();
  const id = randomUUID();
  const { key, wrapped, masterId } = newDataKey(masterKeys([secret]), id);
  await t.db
    .insertInto('conversations')
    .values({
      id,
      status: 'accepted',
      bot_low: low!,
      bot_high: high!,
      requested_by: a.bot.id,
      data_key: wrapped,
      data_key_master: masterId,
      decided_at: new Date(),
      last_message_at: lastMessageAt,
    })
    .execute();
  await t.db
    .insertInto('conversation_members')
    .values([
      { conversation_id: id, bot_id: a.bot.id, other_bot_id: b.bot.id, last_message_at: lastMessageAt },
      { conversation_id: id, bot_id: b.bot.id, other_bot_id: a.bot.id, last_message_at: lastMessageAt },
    ])
    .execute();
  const messageId = randomUUID();
  await t.db
    .insertInto('messages')
    .values({
      id: messageId,
      conversation_id: id,
      sender_id: a.bot.id,
      seq: 1,
      body: seal(key, text, messageContext(id, messageId, a.bot.id)),
    })
    .execute();
  // A `message` notification (raw: the spec's kinds do not hold it until the operations land).
  await sql`insert into notifications (bot_id, kind, actor_id, conversation_id, created_at)
              values (${b.bot.id}, 'message', ${a.bot.id}, ${id}, now())`.execute(t.db);
  return { id, a, b, messageId, text };
}

async function admin(masterKeysGiven: string[] | undefined, ...argv: string[]) {
  const err: string[] = [];
  const code = await runAdmin(
    argv,
    t.db,
    { out: () => {}, err: (line) => err.push(line) },
    {
      ...(masterKeysGiven ? { masterKeys: masterKeysGiven } : {}),
    },
  );
  return { code, err: err.join('\n') };
}

const row = (id: string) =>
  t.db.selectFrom('conversations').selectAll().where('id', '=', id).executeTakeFirst();

/** The message's text, read with the master keys `secrets` as the server would. */
async function readWith(secrets: string[], id: string, messageId: string) {
  const { data_key, data_key_master } = (await row(id))!;
  const key = unwrapDataKey(masterKeys(secrets), { wrapped: data_key, masterId: data_key_master }, id);
  const { body, sender_id } = await t.db
    .selectFrom('messages')
    .select(['body', 'sender_id'])
    .where('id', '=', messageId)
    .executeTakeFirstOrThrow();
  return unseal(key, body, messageContext(id, messageId, sender_id)).toString('utf8');
}

describe('rotate-dm-key', () => {
  test('wraps every data key with the first master key; the messages read the same with it alone', async () => {
    const before = await Promise.all([conversation(oldSecret), conversation(oldSecret, 'Ново')]);
    const sealedBefore = await t.db.selectFrom('messages').select(['id', 'body']).execute();

    const rotated = await admin([newSecret, oldSecret], 'rotate-dm-key');
    assert.equal(rotated.code, 0, rotated.err);
    assert.match(
      rotated.err,
      /Every conversation key is wrapped by the master key [0-9a-f]{16} \(2 rewrapped\)/,
    );
    assert.match(rotated.err, /drop them/);
    assert.ok(!rotated.err.includes(newSecret) && !rotated.err.includes(oldSecret), 'no key is printed');
    for (const { id, messageId, text } of before) {
      assert.equal((await row(id))!.data_key_master, masterKeys([newSecret])[0]!.id);
      assert.equal(await readWith([newSecret], id, messageId), text, 'read with the new key alone');
    }
    assert.deepEqual(
      await t.db.selectFrom('messages').select(['id', 'body']).execute(),
      sealedBefore,
      'no message was encrypted again',
    );
    const again = await admin([newSecret, oldSecret], 'rotate-dm-key');
    assert.match(again.err, /\(0 rewrapped\)/, 'a second run has nothing to do');
  });

  test('names a master key it needs and was not given, rewraps the rest, and exits 1', async () => {
    const kept = await conversation(oldSecret);
    const stranded = await conversation(lostSecret);
    const rotated = await admin([newSecret, oldSecret], 'rotate-dm-key');
    assert.equal(rotated.code, 1);
    assert.match(rotated.err, new RegExp(`wrapped by ${masterKeys([lostSecret])[0]!.id}`));
    assert.equal((await row(kept.id))!.data_key_master, masterKeys([newSecret])[0]!.id);
    assert.equal(
      (await row(stranded.id))!.data_key_master,
      masterKeys([lostSecret])[0]!.id,
      'left as it was',
    );
    assert.equal(await readWith([lostSecret], stranded.id, stranded.messageId), stranded.text);
  });

  test('passes over a conversation being forgotten (its key overwritten already): nothing is missing', async () => {
    const going = await conversation(oldSecret);
    await t.db
      .updateTable('conversations')
      .set({ data_key: Buffer.alloc(0), data_key_master: 'forgotten' })
      .where('id', '=', going.id)
      .execute();
    const rotated = await admin([newSecret, oldSecret], 'rotate-dm-key');
    assert.equal(rotated.code, 0, rotated.err);
    assert.equal((await row(going.id))!.data_key_master, 'forgotten');
  });

  test('in a running server, refuses when the keys given to the command are not the server’s, changing nothing', async () => {
    const talk = await conversation(oldSecret);
    const given = masterKeys([newSecret, oldSecret])
      .map((master) => master.id)
      .join(',');
    // The server still runs with the old key alone: the operator did not restart it first.
    const refused = await admin([oldSecret], 'rotate-dm-key', '--expect-keys', given);
    assert.equal(refused.code, 2);
    assert.match(refused.err, /restart it with DM_MASTER_KEY as given/);
    assert.equal((await row(talk.id))!.data_key_master, masterKeys([oldSecret])[0]!.id, 'nothing changed');
    const agreed = await admin([newSecret, oldSecret], 'rotate-dm-key', '--expect-keys', given);
    assert.equal(agreed.code, 0, agreed.err);
    assert.equal((await row(talk.id))!.data_key_master, masterKeys([newSecret])[0]!.id);
  });

  test('refuses without the master keys, and takes no bot or option', async () => {
    assert.equal((await admin(undefined, 'rotate-dm-key')).code, 2);
    assert.match((await admin(undefined, 'rotate-dm-key')).err, /needs the master keys: set DM_MASTER_KEY/);
    assert.equal((await admin([newSecret], 'rotate-dm-key', 'somebot')).code, 2);
    assert.equal((await admin([newSecret], 'rotate-dm-key', '--actor', 'ops')).code, 2);
    assert.equal((await admin([newSecret], 'rotate-key', 'somebot', '--expect-keys', 'x')).code, 2);
  });
});

describe('forgetting', () => {
  test('a conversation both bots left goes, keys first, with its messages and notifications; one with a bot in it stays', async () => {
    const left = await conversation(oldSecret);
    const kept = await conversation(oldSecret);
    await t.db
      .updateTable('conversation_members')
      .set({ left_at: new Date() })
      .where('conversation_id', '=', left.id)
      .execute();
    await t.db
      .updateTable('conversation_members')
      .set({ left_at: new Date() })
      .where('conversation_id', '=', kept.id)
      .where('bot_id', '=', kept.a.bot.id)
      .execute();
    assert.equal(await forgetConversations(t.db, 365, new Date()), 1);
    assert.equal(await row(left.id), undefined);
    for (const table of ['messages', 'conversation_members', 'notifications'] as const)
      assert.equal(
        (
          await t.db
            .selectFrom(table)
            .select('conversation_id')
            .where('conversation_id', '=', left.id)
            .execute()
        ).length,
        0,
        `${table} of the forgotten conversation`,
      );
    assert.equal(await readWith([oldSecret], kept.id, kept.messageId), kept.text, 'the other is untouched');
  });

  test('a conversation untouched for DM_RETENTION_DAYS goes; one touched within them stays', async () => {
    const now = new Date();
    const old = await conversation(oldSecret, 'old', new Date(now.getTime() - 31 * 86_400_000));
    const recent = await conversation(oldSecret, 'recent', new Date(now.getTime() - 29 * 86_400_000));
    assert.equal(await forgetConversations(t.db, 30, now), 1);
    assert.equal(await row(old.id), undefined);
    assert.ok(await row(recent.id));
  });

  test('a key overwritten but its rows not yet deleted (a crash between the two) is deleted on the next run', async () => {
    const half = await conversation(oldSecret);
    await t.db
      .updateTable('conversations')
      .set({ data_key: Buffer.alloc(0), data_key_master: 'forgotten' })
      .where('id', '=', half.id)
      .execute();
    assert.equal(await forgetConversations(t.db, 365, new Date()), 1);
    assert.equal(await row(half.id), undefined);
  });

  test('a bot deleted takes its side and its messages; the conversation is closed for the other', async () => {
    const talk = await conversation(oldSecret);
    const deleted = await t.app.inject({
      method: 'DELETE',
      url: '/api/bots/me',
      headers: bearer(talk.a.api_key),
    });
    assert.equal(deleted.statusCode, 204);
    assert.equal((await row(talk.id))!.status, 'closed');
    const sides = await t.db
      .selectFrom('conversation_members')
      .select('bot_id')
      .where('conversation_id', '=', talk.id)
      .execute();
    assert.deepEqual(sides, [{ bot_id: talk.b.bot.id }]);
    const messages = await t.db
      .selectFrom('messages')
      .select('id')
      .where('conversation_id', '=', talk.id)
      .execute();
    assert.deepEqual(messages, [], 'its messages went with it');
  });
});
