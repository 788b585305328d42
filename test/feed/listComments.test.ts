import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import { sql } from 'kysely';
import type { LightMyRequestResponse } from 'fastify';
import { useTestApp } from '../helpers/app.js';
import { bearer, createPost, registerBot } from '../helpers/bots.js';
import { assertContract } from '../helpers/contract.js';

const t = useTestApp();

async function postWithComments(count: number) {
  const bot = await registerBot(t.app);
  const post = await createPost(t.app, bot.api_key);
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const parent_id = i > 0 && i % 3 === 0 ? ids[i - 1] : undefined;
    const response = await t.app.inject({
      method: 'POST',
      url: `/api/feed/posts/${post.id}/comment`,
      headers: bearer(bot.api_key),
      payload: { body: `c${i}`, ...(parent_id ? { parent_id } : {}) },
    });
    ids.push(response.json().id);
  }
  return { post, ids };
}

describe('listComments 200', () => {
  test('every comment exactly once, oldest first, across pages, each with its parent_id', async () => {
    const { post, ids } = await postWithComments(11);
    for (const limit of [1, 4, 11, 100]) {
      const seen: Array<{ id: string; parent_id: string | null }> = [];
      let cursor: string | null = null;
      do {
        const response: LightMyRequestResponse = await t.app.inject({
          url: `/api/feed/posts/${post.id}/comments`,
          query: { limit: String(limit), ...(cursor ? { cursor } : {}) },
        });
        assert.equal(response.statusCode, 200);
        assertContract('listComments', response);
        const page: { items: Array<{ id: string; parent_id: string | null }>; next_cursor: string | null } =
          response.json();
        assert.ok(page.items.length <= limit);
        seen.push(...page.items);
        cursor = page.next_cursor;
        if (cursor) assert.equal(page.items.length, limit, 'only a full page can have a next one');
      } while (cursor);
      assert.deepEqual(
        seen.map((c) => c.id),
        ids,
        `limit ${limit}`,
      );
      assert.equal(seen[3]!.parent_id, ids[2]);
      assert.equal(seen[1]!.parent_id, null);
    }
  });

  test('comments in the same millisecond are each listed once', async () => {
    const { post } = await postWithComments(1);
    const bot = await t.db.selectFrom('bots').select('id').executeTakeFirstOrThrow();
    await sql`
      insert into comments (post_id, bot_id, body, created_at)
      select ${post.id}, ${bot.id}, 'tie ' || i, date_trunc('milliseconds', now()) from generate_series(1, 7) as i`.execute(
      t.db,
    );
    const all = (await t.db.selectFrom('comments').select('id').execute()).map((r) => r.id).sort();
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = (
        await t.app.inject({
          url: `/api/feed/posts/${post.id}/comments`,
          query: { limit: '2', ...(cursor ? { cursor } : {}) },
        })
      ).json();
      seen.push(...page.items.map((c: { id: string }) => c.id));
      cursor = page.next_cursor ?? undefined;
    } while (cursor);
    assert.deepEqual([...seen].sort(), all);
  });

  test('a post without comments has an empty last page', async () => {
    const { post } = await postWithComments(0);
    const response = await t.app.inject({ url: `/api/feed/posts/${post.id}/comments` });
    assert.equal(response.statusCode, 200);
    assert.deepEqual(response.json(), { items: [], next_cursor: null });
  });
});

describe('listComments 400', () => {
  test('a bad limit or a cursor this list did not give out', async () => {
    const { post } = await postWithComments(2);
    const feedCursor = Buffer.from(
      JSON.stringify(['feed:new', new Date().toISOString(), randomUUID()]),
    ).toString('base64url');
    for (const query of ['limit=0', 'limit=101', 'cursor=garbage', `cursor=${feedCursor}`]) {
      const response = await t.app.inject({ url: `/api/feed/posts/${post.id}/comments?${query}` });
      assert.equal(response.statusCode, 400, query);
      assertContract('listComments', response);
      assert.deepEqual(
        response.json().errors.map((e: { pointer: string }) => e.pointer),
        [`/${query.split('=')[0]}`],
        query,
      );
    }
  });
});

describe('listComments 404', () => {
  test('an unknown post', async () => {
    const response = await t.app.inject({ url: `/api/feed/posts/${randomUUID()}/comments` });
    assert.equal(response.statusCode, 404);
    assertContract('listComments', response);
  });
});
