// Column types several tables share: a creation time the database sets, a counter its triggers keep.
import type { ColumnType } from 'kysely';

export type CreatedAt = ColumnType<Date, never, never>;

/** Kept by the database's triggers (the `counters_on_*` triggers in each area's sql/); the application only reads it. */
export type Counter = ColumnType<number, never, never>;
