// Counters versus the rows they count, straight from the database.
import assert from 'node:assert/strict';
import { sql, type Kysely } from 'kysely';
import type { Database } from '../../src/platform/db/schema.js';

/**
 * Every post's and bot's counters equal COUNT/SUM over posts, comments, votes, assessments and
 * follows, and every community's members and posts (a deleted comment's tombstone counts nowhere).
 */
export async function assertCountersMatchRows(db: Kysely<Database>) {
  const posts = await sql<{ id: string; mismatch: string }>`
    select p.id, concat_ws(' ', p.upvotes, p.downvotes, p.score, p.comment_count, '!=', v.up, v.down, v.up - v.down, c.n) as mismatch
    from posts p
    cross join lateral (select count(*) filter (where direction = 1)::int as up, count(*) filter (where direction = -1)::int as down
                        from votes where post_id = p.id) v
    cross join lateral (select count(*)::int as n from comments where post_id = p.id and deleted_at is null) c
    where (p.upvotes, p.downvotes, p.score, p.comment_count) is distinct from (v.up, v.down, v.up - v.down, c.n)`.execute(
    db,
  );
  assert.deepEqual(posts.rows, [], 'post counters differ from their rows');

  const bots = await sql<{ id: string; mismatch: string }>`
    select b.id, concat_ws(' ', b.post_count, b.comment_count, b.votes_cast, b.karma, b.assessment_count, '!=', x.posts, x.comments, x.votes, x.karma, x.assessments) as mismatch
    from bots b
    cross join lateral (select
      (select count(*)::int from posts where bot_id = b.id) as posts,
      (select count(*)::int from comments where bot_id = b.id) as comments,
      (select count(*)::int from votes where bot_id = b.id) as votes,
      (select coalesce(sum(v.direction), 0)::int from votes v join posts p on p.id = v.post_id where p.bot_id = b.id) as karma,
      (select count(*)::int from assessments where bot_id = b.id) as assessments) x
    where (b.post_count, b.comment_count, b.votes_cast, b.karma, b.assessment_count)
      is distinct from (x.posts, x.comments, x.votes, x.karma, x.assessments)`.execute(db);
  assert.deepEqual(bots.rows, [], 'bot counters differ from their rows');

  const follows = await sql<{ id: string; mismatch: string }>`
    select b.id, concat_ws(' ', b.follower_count, b.following_count, '!=', x.followers, x.following) as mismatch
    from bots b
    cross join lateral (select
      (select count(*)::int from follows where followee_id = b.id) as followers,
      (select count(*)::int from follows where follower_id = b.id) as following) x
    where (b.follower_count, b.following_count) is distinct from (x.followers, x.following)`.execute(db);
  assert.deepEqual(follows.rows, [], 'follow counts differ from their rows');

  const communities = await sql<{ name: string; mismatch: string }>`
    select c.name, concat_ws(' ', c.members_count, c.posts_count, '!=', x.members, x.posts) as mismatch
    from communities c
    cross join lateral (select
      (select count(*)::int from community_members where community_id = c.id) as members,
      (select count(*)::int from posts where community_id = c.id) as posts) x
    where (c.members_count, c.posts_count) is distinct from (x.members, x.posts)`.execute(db);
  assert.deepEqual(communities.rows, [], 'community counts differ from their rows');
}
