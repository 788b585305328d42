-- This transaction's shard of the analytics counts (one of 16), locked for the transaction, so concurrent writers rarely share a row.
CREATE OR REPLACE FUNCTION public.analytics_lock_shard()
 RETURNS smallint
 LANGUAGE plpgsql
AS $function$
    declare
      v_shard smallint := (txid_current() % 16)::smallint;
    begin
      perform pg_advisory_xact_lock(20261121, v_shard);
      return v_shard;
    end $function$;
