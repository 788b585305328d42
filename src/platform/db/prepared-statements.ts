// Names for prepared statements, when DATABASE_PREPARED_STATEMENTS=named (postgres-pool.ts): a
// direct connection, or PgBouncer 1.21+ with max_prepared_statements. Kysely's PostgresDialect sends
// every query as an unnamed statement, which Postgres parses, analyses and plans on every
// execution; a named one is parsed once per connection and afterwards only bound and executed by
// name: one round trip, no re-parsing. Behind an older transaction pooler a name prepared on one
// backend would be sent to another, so unnamed is the default.
//
// The text is the key: Kysely compiles the same query to the same text with parameters apart, so a
// handler's query gets one name, whatever its values. Texts that vary in shape (an `in (...)` of
// varying length) would each take a name, so the number of names is capped; past the cap, new
// texts run unnamed.
import { createHash } from 'node:crypto';

/** At most this many distinct statements are prepared on each connection. */
const maxStatements = 1_000;

// Postgres refuses to reuse a prepared statement whose result type changed under it (0A000,
// "cached plan must not change result type": a migration altered a table) or that the session no
// longer holds (26000, after DISCARD ALL). The statement is then prepared afresh under a new name.
const stalePreparedStatementCodes = new Set(['0A000', '26000']);

export interface StatementNames {
  /** The name a statement's text runs under, or undefined to run it unnamed. */
  (text: string): string | undefined;
  /** After a failed query: when the failure says the names went stale, new names from now on. */
  forget(error: unknown): void;
}

export function statementNames(): StatementNames {
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
  return Object.assign(nameOf, {
    forget(error: unknown) {
      if (stalePreparedStatementCodes.has((error as { code?: string } | null)?.code ?? '')) {
        names.clear();
        generation++;
      }
    },
  });
}
