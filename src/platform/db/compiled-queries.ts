// Queries compiled once per shape. Kysely builds a tree of immutable nodes and compiles it to SQL
// text on every call; for the hottest reads that text depends only on the query's shape (which
// filters it has, how many rows it reads), never on the values it compares. So the query is built
// and compiled once per shape, with stand-ins where the values go, and each call only puts its
// values in place of the stand-ins: the same text every time, which the Postgres server then
// executes as one prepared statement (prepared-statements.ts).
import type { Compilable, CompiledQuery } from 'kysely';
import type { Db } from './schema.js';

const standInMark = Symbol('stand-in');

/** Where a value goes, in the compiled query's parameters: a path into the call's values. */
interface StandIn {
  [standInMark]: ReadonlyArray<string | number>;
}

function isStandIn(value: unknown): value is StandIn {
  return typeof value === 'object' && value !== null && standInMark in value;
}

/** The values' stand-ins: the same structure, every leaf replaced by its path. */
function standIns(value: unknown, path: ReadonlyArray<string | number>): unknown {
  if (Array.isArray(value)) return value.map((item, i) => standIns(item, [...path, i]));
  if (typeof value === 'object' && value !== null && !(value instanceof Date))
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key, standIns(item, [...path, key])]),
    );
  return { [standInMark]: path } satisfies StandIn;
}

function valueAt(values: unknown, path: ReadonlyArray<string | number>): unknown {
  let value = values;
  for (const step of path) value = (value as Record<string | number, unknown>)[step];
  return value;
}

/**
 * A query compiled once per shape. `build(db, shape, values)` must use `shape` for everything that
 * changes the SQL text and `values` only as values the query compares (they are stand-ins while it
 * compiles: never inspect or transform them in JavaScript). The cache key is the shape's JSON; the
 * text is the same whichever database builds it (both our dialects compile Postgres SQL).
 */
export function compiledPerShape<Shape, Values, Row>(
  build: (db: Db, shape: Shape, values: Values) => Compilable<Row>,
) {
  const compiled = new Map<string, CompiledQuery<Row>>();
  return async function execute(db: Db, shape: Shape, values: Values): Promise<Row[]> {
    const key = JSON.stringify(shape);
    let query = compiled.get(key);
    if (!query) {
      query = build(db, shape, standIns(values, []) as Values).compile();
      compiled.set(key, query);
    }
    const parameters = query.parameters.map((parameter) =>
      isStandIn(parameter) ? valueAt(values, parameter[standInMark]) : parameter,
    );
    const result = await db.executeQuery<Row>({ ...query, parameters });
    return result.rows;
  };
}
