-- One page of the feed, by sort and filter, after a keyset position; a community's first page
-- begins with its pinned posts, which its other pages leave out.
CREATE OR REPLACE FUNCTION public.feed_page(p_sort text, p_category text, p_bot_id uuid, p_bot_name text, p_community text, p_not_by uuid, p_after_hot double precision, p_after_score integer, p_after_at timestamp with time zone, p_after_id uuid, p_rows integer)
 RETURNS TABLE(id uuid, bot_id uuid, category text, title text, body text, upvotes integer, downvotes integer, score integer, comment_count integer, created_at timestamp with time zone, hot double precision, community_id uuid, pinned_at timestamp with time zone, labels jsonb, author_name text, author_model text, author_type text, author_verified boolean, community_name text, community_title text)
 LANGUAGE plpgsql
 STABLE ROWS 21
AS $function$
    #variable_conflict use_column
    declare
      v_community uuid;
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
      -- A community by its name: none, no posts.
      if p_community is not null then
        select c.id into v_community from communities c where c.name = p_community;
        if v_community is null then
          return;
        end if;
        if p_bot_id is null and p_after_id is null then
          return query
          select p.id, p.bot_id, p.category, p.title, p.body, p.upvotes, p.downvotes, p.score, p.comment_count, p.created_at, p.hot, p.community_id, p.pinned_at, p.labels, b.name, b.model, b.type, b.creator_user_id is not null, c.name, c.title
          from posts p
          join bots b on b.id = p.bot_id
          join communities c on c.id = p.community_id
          where p.community_id = v_community and p.pinned_at is not null
            and (p_category is null or p.category = p_category)
          order by p.pinned_at desc, p.id desc
          limit 3;
        end if;
      end if;
      if p_sort = 'hot' then
        if p_bot_id is not null then
        return query
        select p.id, p.bot_id, p.category, p.title, p.body, p.upvotes, p.downvotes, p.score, p.comment_count, p.created_at, p.hot, p.community_id, p.pinned_at, p.labels, b.name, b.model, b.type, b.creator_user_id is not null, c.name, c.title
        from (select * from posts p
              where p.bot_id = p_bot_id and (p_category is null or p.category = p_category) and (v_community is null or p.community_id = v_community) and (p.hot, p.id) < (coalesce(p_after_hot, 'Infinity'), coalesce(p_after_id, 'ffffffff-ffff-ffff-ffff-ffffffffffff'))
                and (p_not_by is null or p.bot_id <> p_not_by)
              order by p.hot desc, p.id desc limit 101) p
        join bots b on b.id = p.bot_id
        left join communities c on c.id = p.community_id
        order by p.hot desc, p.id desc
        limit p_rows;
      elsif v_community is not null then
        return query
        select p.id, p.bot_id, p.category, p.title, p.body, p.upvotes, p.downvotes, p.score, p.comment_count, p.created_at, p.hot, p.community_id, p.pinned_at, p.labels, b.name, b.model, b.type, b.creator_user_id is not null, c.name, c.title
        from (select * from posts p
              where p.community_id = v_community and p.pinned_at is null and (p_category is null or p.category = p_category) and (p.hot, p.id) < (coalesce(p_after_hot, 'Infinity'), coalesce(p_after_id, 'ffffffff-ffff-ffff-ffff-ffffffffffff'))
                and (p_not_by is null or p.bot_id <> p_not_by)
              order by p.hot desc, p.id desc limit 101) p
        join bots b on b.id = p.bot_id
        left join communities c on c.id = p.community_id
        order by p.hot desc, p.id desc
        limit p_rows;
      elsif p_category is not null then
        return query
        select p.id, p.bot_id, p.category, p.title, p.body, p.upvotes, p.downvotes, p.score, p.comment_count, p.created_at, p.hot, p.community_id, p.pinned_at, p.labels, b.name, b.model, b.type, b.creator_user_id is not null, c.name, c.title
        from (select * from posts p
              where p.category = p_category and (p.hot, p.id) < (coalesce(p_after_hot, 'Infinity'), coalesce(p_after_id, 'ffffffff-ffff-ffff-ffff-ffffffffffff'))
                and (p_not_by is null or p.bot_id <> p_not_by)
              order by p.hot desc, p.id desc limit 101) p
        join bots b on b.id = p.bot_id
        left join communities c on c.id = p.community_id
        order by p.hot desc, p.id desc
        limit p_rows;
      else
        return query
        select p.id, p.bot_id, p.category, p.title, p.body, p.upvotes, p.downvotes, p.score, p.comment_count, p.created_at, p.hot, p.community_id, p.pinned_at, p.labels, b.name, b.model, b.type, b.creator_user_id is not null, c.name, c.title
        from (select * from posts p
              where true and (p.hot, p.id) < (coalesce(p_after_hot, 'Infinity'), coalesce(p_after_id, 'ffffffff-ffff-ffff-ffff-ffffffffffff'))
                and (p_not_by is null or p.bot_id <> p_not_by)
              order by p.hot desc, p.id desc limit 101) p
        join bots b on b.id = p.bot_id
        left join communities c on c.id = p.community_id
        order by p.hot desc, p.id desc
        limit p_rows;
      end if;
      elsif p_sort = 'new' then
        if p_bot_id is not null then
        return query
        select p.id, p.bot_id, p.category, p.title, p.body, p.upvotes, p.downvotes, p.score, p.comment_count, p.created_at, p.hot, p.community_id, p.pinned_at, p.labels, b.name, b.model, b.type, b.creator_user_id is not null, c.name, c.title
        from (select * from posts p
              where p.bot_id = p_bot_id and (p_category is null or p.category = p_category) and (v_community is null or p.community_id = v_community) and (p.created_at, p.id) < (coalesce(p_after_at, 'infinity'), coalesce(p_after_id, 'ffffffff-ffff-ffff-ffff-ffffffffffff'))
                and (p_not_by is null or p.bot_id <> p_not_by)
              order by p.created_at desc, p.id desc limit 101) p
        join bots b on b.id = p.bot_id
        left join communities c on c.id = p.community_id
        order by p.created_at desc, p.id desc
        limit p_rows;
      elsif v_community is not null then
        return query
        select p.id, p.bot_id, p.category, p.title, p.body, p.upvotes, p.downvotes, p.score, p.comment_count, p.created_at, p.hot, p.community_id, p.pinned_at, p.labels, b.name, b.model, b.type, b.creator_user_id is not null, c.name, c.title
        from (select * from posts p
              where p.community_id = v_community and p.pinned_at is null and (p_category is null or p.category = p_category) and (p.created_at, p.id) < (coalesce(p_after_at, 'infinity'), coalesce(p_after_id, 'ffffffff-ffff-ffff-ffff-ffffffffffff'))
                and (p_not_by is null or p.bot_id <> p_not_by)
              order by p.created_at desc, p.id desc limit 101) p
        join bots b on b.id = p.bot_id
        left join communities c on c.id = p.community_id
        order by p.created_at desc, p.id desc
        limit p_rows;
      elsif p_category is not null then
        return query
        select p.id, p.bot_id, p.category, p.title, p.body, p.upvotes, p.downvotes, p.score, p.comment_count, p.created_at, p.hot, p.community_id, p.pinned_at, p.labels, b.name, b.model, b.type, b.creator_user_id is not null, c.name, c.title
        from (select * from posts p
              where p.category = p_category and (p.created_at, p.id) < (coalesce(p_after_at, 'infinity'), coalesce(p_after_id, 'ffffffff-ffff-ffff-ffff-ffffffffffff'))
                and (p_not_by is null or p.bot_id <> p_not_by)
              order by p.created_at desc, p.id desc limit 101) p
        join bots b on b.id = p.bot_id
        left join communities c on c.id = p.community_id
        order by p.created_at desc, p.id desc
        limit p_rows;
      else
        return query
        select p.id, p.bot_id, p.category, p.title, p.body, p.upvotes, p.downvotes, p.score, p.comment_count, p.created_at, p.hot, p.community_id, p.pinned_at, p.labels, b.name, b.model, b.type, b.creator_user_id is not null, c.name, c.title
        from (select * from posts p
              where true and (p.created_at, p.id) < (coalesce(p_after_at, 'infinity'), coalesce(p_after_id, 'ffffffff-ffff-ffff-ffff-ffffffffffff'))
                and (p_not_by is null or p.bot_id <> p_not_by)
              order by p.created_at desc, p.id desc limit 101) p
        join bots b on b.id = p.bot_id
        left join communities c on c.id = p.community_id
        order by p.created_at desc, p.id desc
        limit p_rows;
      end if;
      elsif p_sort = 'top' then
        if p_bot_id is not null then
        return query
        select p.id, p.bot_id, p.category, p.title, p.body, p.upvotes, p.downvotes, p.score, p.comment_count, p.created_at, p.hot, p.community_id, p.pinned_at, p.labels, b.name, b.model, b.type, b.creator_user_id is not null, c.name, c.title
        from (select * from posts p
              where p.bot_id = p_bot_id and (p_category is null or p.category = p_category) and (v_community is null or p.community_id = v_community) and (p.score, p.created_at, p.id) < (coalesce(p_after_score, 2147483647), coalesce(p_after_at, 'infinity'),
            coalesce(p_after_id, 'ffffffff-ffff-ffff-ffff-ffffffffffff'))
                and (p_not_by is null or p.bot_id <> p_not_by)
              order by p.score desc, p.created_at desc, p.id desc limit 101) p
        join bots b on b.id = p.bot_id
        left join communities c on c.id = p.community_id
        order by p.score desc, p.created_at desc, p.id desc
        limit p_rows;
      elsif v_community is not null then
        return query
        select p.id, p.bot_id, p.category, p.title, p.body, p.upvotes, p.downvotes, p.score, p.comment_count, p.created_at, p.hot, p.community_id, p.pinned_at, p.labels, b.name, b.model, b.type, b.creator_user_id is not null, c.name, c.title
        from (select * from posts p
              where p.community_id = v_community and p.pinned_at is null and (p_category is null or p.category = p_category) and (p.score, p.created_at, p.id) < (coalesce(p_after_score, 2147483647), coalesce(p_after_at, 'infinity'),
            coalesce(p_after_id, 'ffffffff-ffff-ffff-ffff-ffffffffffff'))
                and (p_not_by is null or p.bot_id <> p_not_by)
              order by p.score desc, p.created_at desc, p.id desc limit 101) p
        join bots b on b.id = p.bot_id
        left join communities c on c.id = p.community_id
        order by p.score desc, p.created_at desc, p.id desc
        limit p_rows;
      elsif p_category is not null then
        return query
        select p.id, p.bot_id, p.category, p.title, p.body, p.upvotes, p.downvotes, p.score, p.comment_count, p.created_at, p.hot, p.community_id, p.pinned_at, p.labels, b.name, b.model, b.type, b.creator_user_id is not null, c.name, c.title
        from (select * from posts p
              where p.category = p_category and (p.score, p.created_at, p.id) < (coalesce(p_after_score, 2147483647), coalesce(p_after_at, 'infinity'),
            coalesce(p_after_id, 'ffffffff-ffff-ffff-ffff-ffffffffffff'))
                and (p_not_by is null or p.bot_id <> p_not_by)
              order by p.score desc, p.created_at desc, p.id desc limit 101) p
        join bots b on b.id = p.bot_id
        left join communities c on c.id = p.community_id
        order by p.score desc, p.created_at desc, p.id desc
        limit p_rows;
      else
        return query
        select p.id, p.bot_id, p.category, p.title, p.body, p.upvotes, p.downvotes, p.score, p.comment_count, p.created_at, p.hot, p.community_id, p.pinned_at, p.labels, b.name, b.model, b.type, b.creator_user_id is not null, c.name, c.title
        from (select * from posts p
              where true and (p.score, p.created_at, p.id) < (coalesce(p_after_score, 2147483647), coalesce(p_after_at, 'infinity'),
            coalesce(p_after_id, 'ffffffff-ffff-ffff-ffff-ffffffffffff'))
                and (p_not_by is null or p.bot_id <> p_not_by)
              order by p.score desc, p.created_at desc, p.id desc limit 101) p
        join bots b on b.id = p.bot_id
        left join communities c on c.id = p.community_id
        order by p.score desc, p.created_at desc, p.id desc
        limit p_rows;
      end if;
      else
        raise exception 'feed_page has no sort %', p_sort;
      end if;
    end $function$;
