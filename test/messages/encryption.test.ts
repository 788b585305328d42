// Direct messages at rest (src/messages/encryption.ts): sealed under a conversation's data key,
// bound to their row, the data key wrapped by a master key that can be rotated; and the embedded
// default keeps its generated master key with its data, so a restart still reads what it wrote.
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';
import { loadConfig } from '../../src/config.js';
import { developmentSecretsFile, keepDevelopmentSecrets } from '../../src/config/development-secrets.js';
import {
  MasterKeyMissing,
  masterKeys,
  messageContext,
  newDataKey,
  seal,
  unseal,
  unwrapDataKey,
  wrapDataKey,
} from '../../src/messages/encryption.js';

const conversation = '0193a5b0-0000-7000-8000-000000000001';
const message = '0193a5b0-0000-7000-8000-0000000000aa';
const sender = '0193a5b0-0000-7000-8000-0000000000bb';

describe('message encryption', () => {
  test('a sealed text opens with its key and context only, and never holds the text', () => {
    const masters = masterKeys(['m'.repeat(32)]);
    const { key } = newDataKey(masters, conversation);
    const text = 'Meet me in the lobby at noon. Key: bp_not-really-a-key';
    const sealed = seal(key, text, messageContext(conversation, message, sender));
    assert.equal(unseal(key, sealed, messageContext(conversation, message, sender)).toString('utf8'), text);
    assert.ok(!sealed.includes(Buffer.from('lobby')), 'the ciphertext does not hold the words');
    assert.notDeepEqual(
      seal(key, text, messageContext(conversation, message, sender)),
      sealed,
      'a fresh nonce each time',
    );
    // Moved to another message's row, or said to be another bot's, it does not open.
    assert.throws(() => unseal(key, sealed, messageContext(conversation, conversation, sender)));
    assert.throws(() => unseal(key, sealed, messageContext(conversation, message, conversation)));
    // Cut short of its tag, it does not open either.
    assert.throws(() => unseal(key, sealed.subarray(0, 20), messageContext(conversation, message, sender)));
    // One byte changed anywhere, it does not open.
    for (const at of [0, 12, 28, sealed.length - 1]) {
      const tampered = Buffer.from(sealed);
      tampered[at]! ^= 1;
      assert.throws(() => unseal(key, tampered, messageContext(conversation, message, sender)), `byte ${at}`);
    }
    // Nor under another conversation's key.
    assert.throws(() =>
      unseal(newDataKey(masters, conversation).key, sealed, messageContext(conversation, message, sender)),
    );
  });

  test('a data key unwraps with the master key that wrapped it, and only for its conversation; a second key rotates it', () => {
    const [oldSecret, newSecret] = ['o'.repeat(32), 'n'.repeat(40)];
    const before = masterKeys([oldSecret]);
    const made = newDataKey(before, conversation);
    assert.equal(made.masterId, before[0]!.id);
    assert.ok(!made.wrapped.includes(made.key), 'the wrapped key does not hold the key');
    assert.deepEqual(unwrapDataKey(before, made, conversation), made.key);
    assert.throws(() => unwrapDataKey(before, made, message), 'a wrapped key moved to another conversation');

    // The new key first: what the old one wrapped still unwraps, and is wrapped again by the new.
    const during = masterKeys([newSecret, oldSecret]);
    assert.deepEqual(unwrapDataKey(during, made, conversation), made.key);
    const rewrapped = wrapDataKey(during, unwrapDataKey(during, made, conversation), conversation);
    assert.equal(rewrapped.masterId, during[0]!.id);

    // The old key retired: what was rewrapped unwraps; what was not names the missing key.
    const after = masterKeys([newSecret]);
    assert.deepEqual(unwrapDataKey(after, rewrapped, conversation), made.key);
    assert.throws(
      () => unwrapDataKey(after, made, conversation),
      (error: unknown) =>
        error instanceof MasterKeyMissing &&
        error.masterId === before[0]!.id &&
        !error.message.includes(oldSecret) &&
        /rotate-dm-key/.test(error.message),
    );
    assert.notEqual(masterKeys([oldSecret])[0]!.id, masterKeys([newSecret])[0]!.id);
  });

  test('the embedded default keeps the master key it generated with its data (0600): a restart reads what it wrote', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'bp-dm-key-'));
    try {
      const first = await keepDevelopmentSecrets(loadConfig({ PGLITE_DIR: dir }));
      assert.equal(first.messages.masterKeyEphemeral, false);
      const file = path.join(dir, developmentSecretsFile);
      assert.equal((await stat(file)).mode & 0o777, 0o600);
      const kept = JSON.parse(await readFile(file, 'utf8')) as { dm_master_key: string };
      assert.deepEqual(first.messages.masterKeys, [kept.dm_master_key]);
      const again = await keepDevelopmentSecrets(loadConfig({ PGLITE_DIR: dir }));
      assert.deepEqual(again.messages.masterKeys, first.messages.masterKeys, 'the same key after a restart');
      // A key that is set is used as set, and nothing generated replaces it.
      const given = await keepDevelopmentSecrets(
        loadConfig({ PGLITE_DIR: dir, DM_MASTER_KEY: 'g'.repeat(32) }),
      );
      assert.deepEqual(given.messages.masterKeys, ['g'.repeat(32)]);
      // A Postgres server keeps nothing beside it: the generated key lasts the process.
      const onPostgres = await keepDevelopmentSecrets(
        loadConfig({ PGLITE_DIR: dir, DATABASE_URL: 'postgres://127.0.0.1/none' }),
      );
      assert.equal(onPostgres.messages.masterKeyEphemeral, true);
    } finally {
      await rm(dir, { recursive: true });
    }
  });
});
