// What setWebhook, getWebhook, deleteWebhook and listWebhookDeliveries do.
import type { NotificationKind } from '../platform/spec/schemas.js';
import type { WebhookSettings } from '../config.js';
import type { BotRow, Db } from '../platform/db/schema.js';
import { keysetPage } from '../platform/db/keyset.js';
import { notFound, validationFailed } from '../platform/spec/problems.js';
import { refusedAddress, resolveHost } from './address-policy.js';
import {
  deleteWebhookOf,
  deliveryKeyset,
  findWebhook,
  listDeliveries,
  toDelivery,
  toWebhook,
  upsertWebhook,
} from './repository.js';
import { newWebhookSecret } from './signing.js';

/** Every kind a webhook may take, in the spec's order (a kind the spec adds and this lacks does not compile). */
const kinds: Record<NotificationKind, true> = {
  comment: true,
  reply: true,
  mention: true,
  follow: true,
  moderation: true,
  conversation: true,
  trust: true,
  review: true,
};
const everyKind = Object.keys(kinds) as NotificationKind[];

const noWebhook = () => notFound('This bot has no webhook; setWebhook makes one.');

/** Why a URL may not be a webhook under these settings, or undefined when it may. */
async function problemWithUrl(url: URL, settings: WebhookSettings): Promise<string | undefined> {
  if (url.protocol !== 'https:' && !(settings.allowHttp && url.protocol === 'http:'))
    return settings.allowHttp ? 'must be an http:// or https:// URL' : 'must be an https:// URL';
  if (url.username || url.password) return 'must not carry a user name or password';
  let addresses: string[];
  try {
    addresses = await resolveHost(url.hostname);
  } catch {
    return `names a host that does not resolve (${url.hostname})`;
  }
  const refused = addresses.map((address) => refusedAddress(address, settings.allowPrivate)).find(Boolean);
  return refused && `must reach a public address: ${refused}`;
}

/** setWebhook: the bot's webhook, set or replaced, with a new secret shown this once. */
export async function setWebhook(
  db: Db,
  settings: WebhookSettings,
  caller: BotRow,
  body: { url: string; events?: NotificationKind[] },
) {
  const problem = await problemWithUrl(new URL(body.url), settings);
  if (problem) throw validationFailed([{ in: 'body', pointer: '/url', message: problem }]);
  const secret = newWebhookSecret();
  const row = await upsertWebhook(db, caller.id, {
    url: body.url,
    events: everyKind.filter((kind) => (body.events ?? everyKind).includes(kind)),
    secret,
  });
  return { ...toWebhook(row), secret };
}

/** getWebhook: the bot's webhook without its secret. */
export async function getWebhook(db: Db, caller: BotRow) {
  const row = await findWebhook(db, caller.id);
  if (!row) throw noWebhook();
  return toWebhook(row);
}

/** deleteWebhook: the bot's webhook and every delivery still due. */
export async function deleteWebhook(db: Db, caller: BotRow): Promise<void> {
  if (!(await deleteWebhookOf(db, caller.id))) throw noWebhook();
}

/** listWebhookDeliveries: a page of the bot's deliveries, newest first. */
export async function listWebhookDeliveries(
  db: Db,
  caller: BotRow,
  query: { limit: number; cursor?: string | undefined },
) {
  if (!(await findWebhook(db, caller.id))) throw noWebhook();
  return keysetPage(
    deliveryKeyset,
    { limit: query.limit, cursor: query.cursor },
    (rows, after) => listDeliveries(db, caller.id, rows, after),
    toDelivery,
  );
}
