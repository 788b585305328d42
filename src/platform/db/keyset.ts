// Keyset pagination, the one way every list pages. A cursor is the sort key of the last item of a
// page, so the next page starts right after it whatever was inserted meanwhile, and page N costs
// what page 1 does. Encoded as base64url JSON; a cursor that does not decode to the expected shape
// is a 400 `invalid_cursor`, never a value that reaches SQL unchecked.
import { sql, type RawBuilder } from 'kysely';
import { ProblemError } from '../spec/problems.js';
import { uuidPattern } from '../spec/formats.js';

export type CursorPart = 'uuid' | 'timestamp' | 'integer' | 'double' | 'real' | 'text';
export type CursorKey = Array<string | number>;

/** An instant as toISOString() writes it, in years Postgres accepts (0001-9999). */
const timestampPattern = /^(?!0000)\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** The ends of float4's normal range (FLT_MIN, FLT_MAX). */
const smallestNormalReal = 2 ** -126;
const largestReal = (2 - 2 ** -23) * 2 ** 127;

// Each part must be a value its column can hold, so a forged cursor is a 400, not a database error.
const partIsValid: Record<CursorPart, (value: unknown) => boolean> = {
  uuid: (value) => typeof value === 'string' && uuidPattern.test(value),
  timestamp: (value) =>
    typeof value === 'string' && timestampPattern.test(value) && new Date(value).toISOString() === value,
  /** A Postgres integer (int4). */
  integer: (value) =>
    Number.isInteger(value) && (value as number) >= -2_147_483_648 && (value as number) <= 2_147_483_647,
  /** A Postgres double precision (float8): any finite number. */
  double: (value) => typeof value === 'number' && Number.isFinite(value),
  /**
   * A Postgres real (float4): zero, or a magnitude within its normal range. Postgres refuses a value
   * past either end ("out of range for type real"); a rank the server gave out is always inside it.
   */
  real: (value) =>
    typeof value === 'number' &&
    (value === 0 || (Math.abs(value) >= smallestNormalReal && Math.abs(value) <= largestReal)),
  /** A string Postgres text can hold (no U+0000), of a length any of our text columns allows. */
  text: (value) => typeof value === 'string' && value.length <= 1000 && !value.includes('\u0000'),
};

export function encodeCursor(kind: string, key: CursorKey): string {
  return Buffer.from(JSON.stringify([kind, ...key])).toString('base64url');
}

/** The key of a cursor made for `kind` whose parts have the given types, or a 400. */
export function decodeCursor(cursor: string, kind: string, parts: CursorPart[]): CursorKey {
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    decoded = undefined;
  }
  if (
    !Array.isArray(decoded) ||
    decoded[0] !== kind ||
    decoded.length !== parts.length + 1 ||
    !parts.every((part, i) => partIsValid[part](decoded[i + 1]))
  ) {
    throw new ProblemError(
      400,
      'invalid_cursor',
      'The cursor was not given out by this list; start again without it.',
      {
        errors: [{ in: 'query', pointer: '/cursor', message: `is not a cursor of this list (${kind})` }],
      },
    );
  }
  return decoded.slice(1) as CursorKey;
}

/**
 * How one list is paged: the cursor kind (a cursor of another list is refused), and the columns of
 * its sort key with the type each part must have. Repositories declare these beside their queries.
 */
export interface Keyset<Row> {
  kind: string;
  key: ReadonlyArray<{ column: keyof Row & string; part: CursorPart }>;
}

/**
 * The keyset of a list in creation order, ties by id: (created_at, id); or ranked by an integer
 * column first, with creation order breaking ties.
 */
export function creationOrder<Row extends { created_at: Date; id: string }>(
  kind: string,
  rankedBy?: keyof Row & string,
): Keyset<Row> {
  return {
    kind,
    key: [
      ...(rankedBy === undefined ? [] : [{ column: rankedBy, part: 'integer' as const }]),
      { column: 'created_at', part: 'timestamp' },
      { column: 'id', part: 'uuid' },
    ],
  };
}

/** What a caller asks of a list: how many, after which cursor. */
export interface PageRequest {
  limit: number;
  cursor?: string | undefined;
}

export interface Page<Item> {
  items: Item[];
  next_cursor: string | null;
}

/** The sort key of a row, as a cursor carries it (instants as ISO strings). */
export function keyOf<Row>(keyset: Keyset<Row>, row: Row): CursorKey {
  return keyset.key.map(({ column }) => {
    const value = row[column];
    return value instanceof Date ? value.toISOString() : (value as string | number);
  });
}

/**
 * One page of a list: decodes the cursor, fetches one row more than the limit (which says whether
 * there is a next page without a count), and makes the next cursor from the last row shown.
 */
export async function keysetPage<Row, Item>(
  keyset: Keyset<Row>,
  request: PageRequest,
  fetch: (limit: number, after: CursorKey | undefined) => Promise<Row[]>,
  toItem: (row: Row) => Item,
): Promise<Page<Item>> {
  const { limit, cursor } = request;
  const parts = keyset.key.map(({ part }) => part);
  const after = cursor ? decodeCursor(cursor, keyset.kind, parts) : undefined;
  const rows = await fetch(limit + 1, after);
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return {
    items: page.map(toItem),
    next_cursor: rows.length > limit && last ? encodeCursor(keyset.kind, keyOf(keyset, last)) : null,
  };
}

/** The row counts a list's LIMIT may be (each page size's "one more" rounds up to the next). */
const literalRowCounts = [1, 2, 11, 21, 51, 101];

/**
 * How many rows a list reads, as a literal from a fixed set. With `LIMIT $1` Postgres plans the
 * statement afresh on every execution (a custom plan for each value), which cost more than running
 * it; a literal makes each shape one text with one cached plan. Reading a few rows more than asked
 * is harmless: keysetPage cuts the page and decides on a next one from the rows it asked for.
 */
export function literalRows(rows: number): number {
  return literalRowCounts.find((count) => count >= rows) ?? rows;
}

/**
 * The SQL condition "after this key" for a list sorted by `columns`: a row comparison, which
 * Postgres answers with a range scan of the index on those columns. `<` for descending lists.
 */
export function afterKey(
  columns: readonly string[],
  direction: 'asc' | 'desc',
  after: CursorKey,
): RawBuilder<boolean> {
  const comparison = direction === 'desc' ? sql`<` : sql`>`;
  return sql<boolean>`(${sql.join(columns.map((column) => sql.ref(column)))}) ${comparison} (${sql.join(after)})`;
}

/** A list's page size when the request names none (every list's `limit` default in openapi.yaml). */
export const defaultPageSize = 20;
