// Named prepared statements for the Postgres server. Kysely's PostgresDialect sends every query as an
// unnamed statement, which Postgres parses, analyses and plans on every execution. This pool hands
// Kysely clients that name each statement after its text, so `pg` parses it once per connection and
// afterwards only binds and executes it by name: one round trip, no re-parsing.
//
// The text is the key: Kysely compiles the same query to the same text with parameters apart, so a
// handler's query gets one name, whatever its values. Texts that vary in shape (an `in (...)` of
// varying length) would each take a name, so the number of names is capped; past the cap, new
// texts run unnamed as before.
import { createHash } from 'node:crypto';
import type { PostgresPool, PostgresPoolClient, PostgresQueryResult } from 'kysely';
import type pg from 'pg';

/** At most this many distinct statements are prepared on each connection. */
const maxStatements = 1_000;

// Postgres refuses to reuse a prepared statement whose result type changed under it (0A000,
// "cached plan must not change result type": a migration altered a table) or that the session no
// longer holds (26000, after DISCARD ALL). The statement is then prepared afresh under a new name.
const stalePreparedStatementCodes = new Set(['0A000', '26000']);

export function preparingPool(pool: pg.Pool): PostgresPool {
  const names = new Map<string, string>();
  let generation = 0;

  const nameOf = (text: string): string | undefined => {
    const known = names.get(text);
    if (known !== undefined || names.size >= maxStatements) return known;
    // A multi-statement text (a migration's DDL) cannot be prepared; only single statements are named.
    if (text.includes(';')) return undefined;
    const name = `bp_${generation}_${createHash('sha1').update(text).digest('base64url')}`;
    names.set(text, name);
    return name;
  };

  return {
    async connect(): Promise<PostgresPoolClient> {
      const client = await pool.connect();
      return {
        query: ((textOrCursor: string | object, values?: readonly unknown[]) => {
          if (typeof textOrCursor !== 'string') return client.query(textOrCursor as pg.Submittable);
          const name = nameOf(textOrCursor);
          if (name === undefined) return client.query(textOrCursor, values as unknown[]);
          return client
            .query({ name, text: textOrCursor, values: values as unknown[] })
            .catch((error: unknown) => {
              if (stalePreparedStatementCodes.has((error as { code?: string }).code ?? '')) {
                names.clear();
                generation++;
              }
              throw error;
            }) as Promise<PostgresQueryResult<unknown>>;
        }) as PostgresPoolClient['query'],
        release: () => client.release(),
      };
    },
    end: () => pool.end(),
  };
}
