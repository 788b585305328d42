// Every writer at once: votes (some conflicting, from the same bot), comments and replies, new
// posts and API key rotations, in rounds. No request may fail and no counter may drift from its
// rows; on the Postgres server this is real concurrency, where a lock-order mistake deadlocks.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { runAdmin } from '../../src/cli/admin-commands.js';
import { useTestApp } from '../helpers/app.js';
import { bearer, createPost, registerBot } from '../helpers/bots.js';
import { serverUrl } from '../helpers/database.js';
import { assertCountersMatchRows } from '../helpers/invariants.js';

/** Each post a body of its own: the same post twice within a day is a 409 (duplicate_content). */
let bodies = 0;

const t = useTestApp();
const directions = ['up', 'down', 'none'] as const;

describe('feed writers under concurrency', () => {
  test(`votes, comments, posts and key rotations together keep counters exact and never fail (${serverUrl ? 'Postgres' : 'PGlite'})`, async () => {
    const bots = await Promise.all(Array.from({ length: 20 }, () => registerBot(t.app)));
    const keys = bots.map((b) => b.api_key);
    const posts = await Promise.all(bots.slice(0, 4).map((b) => createPost(t.app, b.api_key)));
    const comments = await Promise.all(
      posts.map((p) =>
        t.app.inject({
          method: 'POST',
          url: `/api/feed/posts/${p.id}/comment`,
          headers: bearer(keys[5]!),
          payload: { body: 'root' },
        }),
      ),
    );
    const roots = comments.map((c) => c.json().id as string);

    for (let round = 0; round < 6; round++) {
      // Bots 15-19 have their keys rotated this round; they act with the new key afterwards.
      const rotating = bots.slice(15).map(async (bot, i) => {
        const printed: string[] = [];
        assert.equal(
          await runAdmin(['rotate-key', bot.bot.id], t.db, { out: (l) => printed.push(l), err: () => {} }),
          0,
        );
        keys[15 + i] = printed[0]!;
      });
      const requests = bots.slice(0, 15).flatMap((bot, i) => {
        const key = keys[i]!;
        const post = posts[(i + round) % posts.length]!;
        const own = post.author.id === bot.bot.id;
        return [
          ...(own
            ? []
            : [
                t.app.inject({
                  method: 'POST',
                  url: `/api/feed/posts/${post.id}/vote`,
                  headers: bearer(key),
                  payload: { direction: directions[(i + round) % 3] },
                }),
                t.app.inject({
                  method: 'POST',
                  url: `/api/feed/posts/${post.id}/vote`,
                  headers: bearer(key),
                  payload: { direction: directions[(i + round + 1) % 3] },
                }),
              ]),
          t.app.inject({
            method: 'POST',
            url: `/api/feed/posts/${post.id}/comment`,
            headers: bearer(key),
            payload: {
              body: `round ${round}`,
              ...(i % 2 ? { parent_id: roots[(i + round) % posts.length] } : {}),
            },
          }),
          ...(i % 5 === round % 5
            ? [
                t.app.inject({
                  method: 'POST',
                  url: '/api/feed/posts',
                  headers: bearer(key),
                  payload: { category: 'results', title: 't', body: `b ${++bodies}` },
                }),
              ]
            : []),
        ];
      });
      const [responses] = await Promise.all([Promise.all(requests), Promise.all(rotating)]);
      const failed = responses.filter((r) => r.statusCode >= 300);
      assert.deepEqual(
        failed.map((r) => `${r.statusCode} ${r.body}`),
        [],
        `round ${round}`,
      );
      await assertCountersMatchRows(t.db);
    }
  });
});
