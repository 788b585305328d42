// The exact sliding log behind the per-bot rate limits: one row per admitted request, per key.
// Frozen: never edit a migration that has shipped; add a new one.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('rate_limit_hits')
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('at', 'timestamptz', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('rate_limit_hits_key_at').on('rate_limit_hits').columns(['key', 'at']).execute();
  await db.schema.createIndex('rate_limit_hits_at').on('rate_limit_hits').column('at').execute();

  // One call per request, atomic: the key's advisory lock serialises every server instance on the
  // same key; hits that left the window are pruned; the request is recorded only if fewer than
  // `max` remain in (now - window, now]. Returns how many are in the window counting this request
  // (max + 1 when refused, so the caller sees it exceeded) and the milliseconds until the oldest
  // counted hit leaves the window. With record = false it only reads: no lock, no write.
  //
  // "now" is decided here, after the lock: the database's clock (one clock for every instance),
  // or p_now when a test injects one, and never earlier than the key's latest hit. A time taken
  // before waiting for the lock could be older than a hit recorded meanwhile, which would then
  // not be counted.
  await sql`
    create function rate_limit_hit(p_key text, p_now timestamptz, p_window_ms integer, p_max integer, p_record boolean)
    returns table (current integer, ttl_ms bigint)
    language plpgsql as $$
    declare
      v_window interval := make_interval(secs => p_window_ms / 1000.0);
      v_now timestamptz;
      v_count integer;
      v_oldest timestamptz;
    begin
      if p_record then
        perform pg_advisory_xact_lock(hashtextextended(p_key, 0));
      end if;
      select greatest(coalesce(p_now, date_trunc('milliseconds', clock_timestamp())), max(at)) into v_now
        from rate_limit_hits where key = p_key;
      if p_record then
        delete from rate_limit_hits where key = p_key and at <= v_now - v_window;
      end if;
      select count(*), min(at) into v_count, v_oldest
        from rate_limit_hits where key = p_key and at > v_now - v_window;
      if p_record and v_count < p_max then
        insert into rate_limit_hits (key, at) values (p_key, v_now);
        v_count := v_count + 1;
        v_oldest := coalesce(v_oldest, v_now);
      elsif p_record then
        v_count := v_count + 1;
      end if;
      return query select v_count,
        case when v_oldest is null then 0::bigint
             else ceil(extract(epoch from (v_oldest + v_window - v_now)) * 1000)::bigint end;
    end
    $$`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop function rate_limit_hit(text, timestamptz, integer, integer, boolean)`.execute(db);
  await db.schema.dropTable('rate_limit_hits').execute();
}
