// Direct messages at rest (README.md): every message body and request text is sealed with
// AES-256-GCM under its conversation's data key, and the data key is kept in the database only
// wrapped (AES-256-GCM again) by a master key the database never holds (DM_MASTER_KEY, or the
// file DM_MASTER_KEY_FILE names). Each seal is bound to where it is kept (its additional data: the
// conversation, and the message), so a sealed text moved to another row does not open.
import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from 'node:crypto';

/** A master key: the 32 bytes it derives, and the fingerprint a wrapped data key names it by. */
export interface MasterKey {
  id: string;
  key: Buffer;
}

/** What the database keeps of a conversation's data key: sealed, and the master key that sealed it. */
export interface WrappedKey {
  wrapped: Buffer;
  masterId: string;
}

const nonceBytes = 12;
const tagBytes = 16;

/**
 * The master keys from their secrets (each at least 32 characters, as the configuration checks):
 * the first wraps every new data key and every key `rotate-dm-key` wraps again; the others only
 * unwrap, while the keys they wrapped are rewrapped.
 */
export function masterKeys(secrets: string[]): MasterKey[] {
  return secrets.map((secret) => {
    const key = Buffer.from(hkdfSync('sha256', secret, 'bot-platform', 'dm master key', 32));
    // Named by a MAC under the key itself: says which key, and nothing of it.
    return { id: createHmac('sha256', key).update('fingerprint').digest('hex').slice(0, 16), key };
  });
}

/** `plain` sealed under `key`, bound to `context`: nonce, tag, then the ciphertext. */
export function seal(key: Buffer, plain: Buffer | string, context: string): Buffer {
  const nonce = randomBytes(nonceBytes);
  const cipher = createCipheriv('aes-256-gcm', key, nonce, { authTagLength: tagBytes });
  cipher.setAAD(Buffer.from(context, 'utf8'));
  const sealed = Buffer.concat([cipher.update(plain), cipher.final()]);
  return Buffer.concat([nonce, cipher.getAuthTag(), sealed]);
}

/** What seal() sealed under `key` for `context`; throws when the key, the context or a byte differs. */
export function unseal(key: Buffer, sealed: Buffer, context: string): Buffer {
  if (sealed.length < nonceBytes + tagBytes)
    throw new Error('a sealed text holds a nonce and a tag at least');
  const decipher = createDecipheriv('aes-256-gcm', key, sealed.subarray(0, nonceBytes), {
    authTagLength: tagBytes,
  });
  decipher.setAAD(Buffer.from(context, 'utf8'));
  decipher.setAuthTag(sealed.subarray(nonceBytes, nonceBytes + tagBytes));
  return Buffer.concat([decipher.update(sealed.subarray(nonceBytes + tagBytes)), decipher.final()]);
}

/** A new data key for a conversation, and it wrapped by the first master key. */
export function newDataKey(masters: MasterKey[], conversationId: string): { key: Buffer } & WrappedKey {
  const key = randomBytes(32);
  return { key, ...wrapDataKey(masters, key, conversationId) };
}

export function wrapDataKey(masters: MasterKey[], key: Buffer, conversationId: string): WrappedKey {
  const master = masters[0]!;
  return { wrapped: seal(master.key, key, wrapContext(conversationId)), masterId: master.id };
}

/** A conversation's data key, unwrapped by the master key that wrapped it (which must still be given). */
export function unwrapDataKey(masters: MasterKey[], wrapped: WrappedKey, conversationId: string): Buffer {
  const master = masters.find((candidate) => candidate.id === wrapped.masterId);
  if (!master) throw new MasterKeyMissing(wrapped.masterId);
  const key = unseal(master.key, wrapped.wrapped, wrapContext(conversationId));
  if (key.length !== 32) throw new Error('a data key is 32 bytes');
  return key;
}

/** A data key wrapped by a master key this process was not given (retired before its keys were rewrapped). */
export class MasterKeyMissing extends Error {
  constructor(readonly masterId: string) {
    super(
      `a conversation's key is wrapped by the DM master key ${masterId}, which DM_MASTER_KEY does not hold: give it back (after the current key) and run \`npm run admin -- rotate-dm-key\``,
    );
  }
}

const wrapContext = (conversationId: string) => `conversation key ${conversationId}`;

/** The additional data a message's text is sealed with: its conversation, its own id and its sender. */
export const messageContext = (conversationId: string, messageId: string, senderId: string) =>
  `message ${conversationId} ${messageId} from ${senderId}`;
