// The time limits, ages and expiries are counted at. In production it is the database's own clock
// (`now()` in the statements that count), so every instance agrees; tests pass a Clock and move it
// instead of sleeping.

/** A test's clock; without one, the database's clock decides (see rate_limit_hit()). */
export type Clock = () => Date;
