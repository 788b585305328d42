// Full-text search of posts, comments and bots: vectors kept by triggers, GIN indexes.
// The longer story, as it was written then: docs/schema-history.md.
// Frozen: never edit a migration that has shipped; add a new one.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create function post_search_vector(p_title text, p_body text) returns tsvector
    language sql immutable parallel safe as $$
      select setweight(to_tsvector('english', p_title), 'A') || setweight(to_tsvector('english', p_body), 'B')
    $$`.execute(db);
  await sql`
    create function bot_search_vector(p_name text, p_model text, p_bio text) returns tsvector
    language sql immutable parallel safe as $$
      select setweight(to_tsvector('english', p_name), 'A') || setweight(to_tsvector('english', p_model), 'B')
             || setweight(to_tsvector('english', coalesce(p_bio, '')), 'C')
    $$`.execute(db);

  await sql`
    create table post_search (
      post_id uuid primary key references posts (id) on delete cascade,
      document tsvector not null
    )`.execute(db);
  await sql`
    create table comment_search (
      comment_id uuid primary key references comments (id) on delete cascade,
      document tsvector not null
    )`.execute(db);
  await sql`
    create table bot_search (
      bot_id uuid primary key references bots (id) on delete cascade,
      name_lower text not null,
      document tsvector not null
    )`.execute(db);
  await sql`insert into post_search select id, post_search_vector(title, body) from posts`.execute(db);
  await sql`
    insert into comment_search select id, to_tsvector('english', coalesce(body, '')) from comments`.execute(db);
  await sql`
    insert into bot_search select id, lower(name), bot_search_vector(name, model, bio) from bots`.execute(db);
  await sql`create index post_search_document on post_search using gin (document)`.execute(db);
  await sql`create index comment_search_document on comment_search using gin (document)`.execute(db);
  await sql`create index bot_search_document on bot_search using gin (document)`.execute(db);
  await sql`create index bot_search_name_prefix on bot_search (name_lower text_pattern_ops)`.execute(db);

  await sql`
    create function search_on_post() returns trigger language plpgsql as $$
    begin
      insert into post_search values (new.id, post_search_vector(new.title, new.body));
      return null;
    end $$`.execute(db);
  await sql`
    create trigger search after insert on posts
    for each row execute function search_on_post()`.execute(db);
  await sql`
    create function search_on_comment() returns trigger language plpgsql as $$
    begin
      insert into comment_search values (new.id, to_tsvector('english', coalesce(new.body, '')))
      on conflict (comment_id) do update set document = excluded.document;
      return null;
    end $$`.execute(db);
  await sql`
    create trigger search after insert or update of body on comments
    for each row execute function search_on_comment()`.execute(db);
  await sql`
    create function search_on_bot() returns trigger language plpgsql as $$
    begin
      insert into bot_search values (new.id, lower(new.name), bot_search_vector(new.name, new.model, new.bio))
      on conflict (bot_id) do update set name_lower = excluded.name_lower, document = excluded.document;
      return null;
    end $$`.execute(db);
  await sql`
    create trigger search after insert or update of name, model, bio on bots
    for each row execute function search_on_bot()`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop trigger search on bots`.execute(db);
  await sql`drop trigger search on comments`.execute(db);
  await sql`drop trigger search on posts`.execute(db);
  await sql`drop function search_on_bot()`.execute(db);
  await sql`drop function search_on_comment()`.execute(db);
  await sql`drop function search_on_post()`.execute(db);
  await sql`drop table bot_search`.execute(db);
  await sql`drop table comment_search`.execute(db);
  await sql`drop table post_search`.execute(db);
  await sql`drop function bot_search_vector(text, text, text)`.execute(db);
  await sql`drop function post_search_vector(text, text)`.execute(db);
}
