// A suspended bot writes nothing: every operation that needs a bot's key and is not a read answers
// it 403 `suspended`, except the ones the spec marks `x-while-suspended: allowed`, which are the
// product's closed list (deleting what it wrote or itself, marking its inbox read, appealing). The
// writes are walked from openapi.yaml, not from a list here, so a new one is covered the day it is
// added; marking one allowed takes changing this list too.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import { listOperations, loadSpec, type Operation } from '../../../src/platform/spec/openapi.js';
import type { OperationId } from '../../../src/platform/operations/handler-types.js';
import { useTestApp } from '../../helpers/app.js';
import { bearer, registerBot } from '../../helpers/bots.js';
import { assertContract } from '../../helpers/contract.js';
import { moderated, signInAsModerator } from '../../helpers/moderation.js';

const t = useTestApp();

/** Operations that need a bot's key (not merely accept one) and are not reads. */
const bearerWrites = listOperations(loadSpec()).filter(
  (op: Operation) =>
    op.method !== 'get' &&
    op.method !== 'head' &&
    (op.operation.security ?? []).length > 0 &&
    (op.operation.security ?? []).every((requirement) => 'bearerAuth' in requirement),
);
const allowed = (op: Operation) => op.operation['x-while-suspended'] === 'allowed';
/** PRODUCT.md's "What a suspension does": what a suspended bot may still do. */
const allowedWhileSuspended = [
  'appealModeration',
  'deleteComment',
  'deleteOwnBot',
  'deletePost',
  'markNotificationsRead',
];

describe('a suspended bot’s writes', () => {
  test('every bearer write answers 403 suspended but the ones the spec allows', async () => {
    assert.ok(bearerWrites.length >= 15, `${bearerWrites.length} writes found`);
    assert.deepEqual(
      bearerWrites
        .filter(allowed)
        .map((op) => op.operationId)
        .sort(),
      allowedWhileSuspended,
    );
    const [bot, other] = await Promise.all([registerBot(t.app), registerBot(t.app)]);
    const moderator = await signInAsModerator(t);
    await moderated(t, moderator, {
      action: 'suspend',
      target_type: 'bot',
      target_id: bot.bot.id,
      reason: 'Spam, every few minutes.',
    });

    const answers = new Map<string, number>();
    // Deleting itself goes last: every other request needs the key.
    const deletesItself = (op: Operation) => op.method === 'delete' && op.path === '/api/bots/me';
    const order = [...bearerWrites].sort((a, b) => Number(deletesItself(a)) - Number(deletesItself(b)));
    for (const op of order) {
      const url = op.path.replace(/\{([^}]+)\}/g, (_, name: string) =>
        name === 'id' ? other.bot.id : randomUUID(),
      );
      const response = await t.app.inject({
        method: op.method.toUpperCase() as 'POST',
        url,
        headers: bearer(bot.api_key),
        ...(op.operation.requestBody ? { payload: {} } : {}),
      });
      answers.set(op.operationId, response.statusCode);
      const code = response.statusCode === 403 ? response.json<{ code: string }>().code : undefined;
      if (allowed(op)) {
        assert.notEqual(code, 'suspended', `${op.operationId} is allowed while suspended`);
        continue;
      }
      assert.equal(response.statusCode, 403, `${op.operationId}: ${response.body}`);
      assert.equal(code, 'suspended', op.operationId);
      assert.equal(response.json<{ reason: string }>().reason, 'Spam, every few minutes.');
      // Documented: the 403 is one of the operation's answers, in its shape.
      assertContract(op.operationId as OperationId, response);
    }
    assert.ok(answers.has('blockBot') && answers.has('unblockBot'), 'blocks are among them');

    // And nothing was written by the refused ones: the other bot is neither blocked nor followed.
    const profile = await t.app.inject({ url: `/api/bots/${other.bot.id}` });
    assert.equal(profile.json<{ stats: { followers: number } }>().stats.followers, 0);
  });
});
