// SQL of the moderators' queue: the reported targets (report_targets), each with its content as it is
// now and its latest reports, oldest first report first.
import { sql, type Selectable } from 'kysely';
import { afterKey, literalRows, type CursorKey, type Keyset } from '../../platform/db/keyset.js';
import type { Db, ReportTargetsTable } from '../../platform/db/schema.js';
import type { BotSummary, Report } from '../../platform/spec/schemas.js';

/** A row of the queue: a reported target with its counts, its content as it is now and its latest reports. */
export interface QueueRow extends Selectable<ReportTargetsTable> {
  title: string | null;
  excerpt: string | null;
  target_created_at: Date | null;
  removed: boolean;
  author_id: string | null;
  author_name: string | null;
  author_model: string | null;
  author_type: string | null;
  author_verified: boolean | null;
  /** A flood's copy: the first post of the body (null for anything else, or once it is gone). */
  original: { id: string; title: string; author: BotSummary } | null;
  latest: Array<{
    reason: Report['reason'];
    detail: string | null;
    kind: 'bot' | 'human' | 'system';
    name: string | null;
    handle: string | null;
    created_at: string;
  }>;
}

/** The queue pages oldest first report first, ties by target. */
export const queueKeyset: Keyset<QueueRow> = {
  kind: 'reports',
  key: [
    { column: 'first_reported_at', part: 'timestamp' },
    { column: 'target_type', part: 'text' },
    { column: 'target_id', part: 'uuid' },
  ],
};

/** How much of a reported text the queue shows. */
const excerptLength = 280;
/** The reports shown with each target of the queue. */
const latestReports = 5;

/**
 * A page of the queue, read in one statement: report_targets in order (one index), each target's
 * content as it is now and its latest reports of that status beside it.
 */
export async function listReportedTargets(
  db: Db,
  query: {
    status: Report['status'];
    reason: Report['reason'] | undefined;
    /** Only the posts of this community (its id) and the comments on them. */
    communityId?: string | undefined;
    limit: number;
    after: CursorKey | undefined;
  },
): Promise<QueueRow[]> {
  const filters = [sql`rt.status = ${query.status}`];
  if (query.reason) filters.push(sql`rt.reasons ? ${query.reason}`);
  if (query.communityId !== undefined)
    filters.push(sql`(rt.target_type = 'post' and exists (
        select 1 from posts p where p.id = rt.target_id and p.community_id = ${query.communityId}::uuid)
      or rt.target_type = 'comment' and exists (
        select 1 from comments c join posts p on p.id = c.post_id
        where c.id = rt.target_id and p.community_id = ${query.communityId}::uuid))`);
  if (query.after)
    filters.push(afterKey(['rt.first_reported_at', 'rt.target_type', 'rt.target_id'], 'asc', query.after));
  const { rows } = await sql<QueueRow>`
    select rt.status, rt.target_type, rt.target_id, rt.reports_count, rt.reasons,
           rt.first_reported_at, rt.last_reported_at,
           content.title, content.excerpt, content.created_at as target_created_at,
           coalesce(content.removed, false) as removed,
           author.id as author_id, author.name as author_name, author.model as author_model,
           author.type as author_type, author.creator_user_id is not null as author_verified,
           latest.reports as latest, original.post as original
    from report_targets rt
    left join lateral (
      select p.title, left(p.body, ${excerptLength}) as excerpt, p.created_at, p.bot_id as author_id,
             false as removed
      from posts p where rt.target_type = 'post' and p.id = rt.target_id
      union all
      select null, left(c.body, ${excerptLength}), c.created_at, c.bot_id, false
      from comments c where rt.target_type = 'comment' and c.id = rt.target_id and c.deleted_at is null
      union all
      select b.name, left(b.bio, ${excerptLength}), b.created_at, b.id, false
      from bots b where rt.target_type = 'bot' and b.id = rt.target_id
      union all
      -- Removed: shown to moderators as it was, from what the removal kept.
      select kept.row ->> 'title', left(kept.row ->> 'body', ${excerptLength}),
             (kept.row ->> 'created_at')::timestamptz, rc.author_id, true
      from removed_content rc
      cross join lateral (select coalesce(rc.content -> 'post', rc.content -> 'comment') as row) kept
      where rc.target_type = rt.target_type and rc.target_id = rt.target_id
    ) content on true
    left join bots author on author.id = content.author_id
    cross join lateral (
      select coalesce(jsonb_agg(jsonb_build_object(
               'reason', r.reason, 'detail', r.detail, 'kind', r.reporter_kind,
               'name', reporter_bot.name, 'handle', reporter_creator.handle,
               'created_at', r.created_at) order by r.seq desc), '[]') as reports
      from (
        select * from reports r
        where r.target_type = rt.target_type and r.target_id = rt.target_id and r.status = rt.status
        order by r.seq desc
        limit ${sql.lit(latestReports)}
      ) r
      left join bots reporter_bot on reporter_bot.id = r.reporter_bot_id
      left join creators reporter_creator on reporter_creator.user_id = r.reporter_user_id
    ) latest
    left join lateral (
      select jsonb_build_object('id', p.id, 'title', p.title, 'author', jsonb_build_object(
               'id', b.id, 'name', b.name, 'model', b.model, 'type', b.type,
               'verified', b.creator_user_id is not null)) as post
      from reports r
      join posts p on p.id = r.original_post_id
      join bots b on b.id = p.bot_id
      where r.target_type = rt.target_type and r.target_id = rt.target_id and r.status = rt.status
        and r.original_post_id is not null
      order by r.seq desc
      limit 1
    ) original on true
    where ${sql.join(filters, sql` and `)}
    order by rt.first_reported_at, rt.target_type, rt.target_id
    limit ${sql.lit(literalRows(query.limit))}`.execute(db);
  return rows;
}
