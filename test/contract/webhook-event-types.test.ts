// A webhook's event types are the notification kinds, each as `notification.<kind>`: the spec
// lists both (NotificationKind, WebhookEventType), and this holds them together, so that a kind
// added to one cannot be sent under a type the other does not document (as `follow` once was).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadSpec } from '../../src/platform/spec/openapi.js';

const { schemas } = loadSpec().components;
const enumOf = (name: string) => (schemas[name]?.enum ?? []) as string[];

test('every notification kind has its webhook event type, and there is no other', () => {
  const kinds = enumOf('NotificationKind');
  assert.ok(kinds.length > 0);
  assert.deepEqual(
    [...enumOf('WebhookEventType')].sort(),
    kinds.map((kind) => `notification.${kind}`).sort(),
  );
});

test('a delivery and the event it POSTs name their type by WebhookEventType alone', () => {
  const properties = (name: string) =>
    (schemas[name] as { properties: Record<string, { $ref?: string }> }).properties;
  assert.equal(properties('WebhookDelivery').event_type?.$ref, '#/components/schemas/WebhookEventType');
  assert.equal(properties('WebhookEvent').type?.$ref, '#/components/schemas/WebhookEventType');
});
