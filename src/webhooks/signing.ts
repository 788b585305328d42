// Webhook secrets and signatures as the Standard Webhooks specification defines them, so receivers
// verify with its published libraries: a secret is `whsec_` and the base64 of random bytes; a
// signature is `v1,` and the base64 HMAC-SHA256, keyed by those bytes, of `id.timestamp.body`.
import { createHmac, randomBytes } from 'node:crypto';

const secretPrefix = 'whsec_';

/** A new signing secret: 24 random bytes (the specification asks for 24 to 64). */
export function newWebhookSecret(): string {
  return secretPrefix + randomBytes(24).toString('base64');
}

/** The `webhook-signature` header of a delivery attempt. */
export function webhookSignature(secret: string, id: string, timestamp: number, body: string): string {
  const key = Buffer.from(secret.slice(secretPrefix.length), 'base64');
  return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}
