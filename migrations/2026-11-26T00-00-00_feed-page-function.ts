// feed_page(): the feed's page as a function, planned once per connection instead of on every
// request.
// The longer story, as it was written then: bench/results/migrations.md.
// Frozen: never edit a migration that has shipped; add a new one.
import { sql, type Kysely } from 'kysely';

type Sort = 'hot' | 'new' | 'top';

/** Each sort's keyset, most significant first, and the parameters its cursor arrives in. */
const keysets: Record<Sort, { columns: string; after: string }> = {
  hot: {
    columns: 'p.hot, p.id',
    after: `coalesce(p_after_hot, 'Infinity'), coalesce(p_after_id, 'ffffffff-ffff-ffff-ffff-ffffffffffff')`,
  },
  new: {
    columns: 'p.created_at, p.id',
    after: `coalesce(p_after_at, 'infinity'), coalesce(p_after_id, 'ffffffff-ffff-ffff-ffff-ffffffffffff')`,
  },
  top: {
    columns: 'p.score, p.created_at, p.id',
    after: `coalesce(p_after_score, 2147483647), coalesce(p_after_at, 'infinity'),
            coalesce(p_after_id, 'ffffffff-ffff-ffff-ffff-ffffffffffff')`,
  },
};

const filters = {
  none: 'true',
  category: 'p.category = p_category',
  author: 'p.bot_id = p_bot_id and (p_category is null or p.category = p_category)',
} as const;

function pageQuery(sort: Sort, filter: keyof typeof filters): string {
  const { columns, after } = keysets[sort];
  const descending = columns
    .split(', ')
    .map((column) => `${column} desc`)
    .join(', ');
  return `return query
        select p.*, b.name, b.model, b.type, b.creator_user_id is not null
        from (select * from posts p
              where ${filters[filter]} and (${columns}) < (${after})
                and (p_not_by is null or p.bot_id <> p_not_by)
              order by ${descending} limit 101) p
        join bots b on b.id = p.bot_id
        order by ${descending}
        limit p_rows;`;
}

function sortBranch(sort: Sort): string {
  return `if p_bot_id is not null then
        ${pageQuery(sort, 'author')}
      elsif p_category is not null then
        ${pageQuery(sort, 'category')}
      else
        ${pageQuery(sort, 'none')}
      end if;`;
}

export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create function feed_page(p_sort text, p_category text, p_bot_id uuid, p_bot_name text, p_not_by uuid,
      p_after_hot double precision, p_after_score integer, p_after_at timestamptz, p_after_id uuid,
      p_rows integer)
    returns table (id uuid, bot_id uuid, category text, title text, body text, upvotes integer,
      downvotes integer, score integer, comment_count integer, created_at timestamptz,
      hot double precision, author_name text, author_model text, author_type text, author_verified boolean)
    language plpgsql stable rows 21 as $$
    #variable_conflict use_column
    begin
      if p_rows > 101 then
        raise exception 'feed_page reads at most 101 rows, not %', p_rows;
      end if;
      -- An author named rather than identified: no such bot, no posts.
      if p_bot_name is not null then
        select b.id into p_bot_id from bots b where lower(b.name) = p_bot_name;
        if p_bot_id is null then
          return;
        end if;
      end if;
      if p_sort = 'hot' then
        ${sql.raw(sortBranch('hot'))}
      elsif p_sort = 'new' then
        ${sql.raw(sortBranch('new'))}
      elsif p_sort = 'top' then
        ${sql.raw(sortBranch('top'))}
      else
        raise exception 'feed_page has no sort %', p_sort;
      end if;
    end $$`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop function feed_page(text, text, uuid, text, uuid, double precision, integer, timestamptz, uuid, integer)`.execute(
    db,
  );
}
