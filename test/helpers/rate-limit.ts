// For tests of the rolling-hour limits: a clock the tests move instead of sleeping, and the
// headers every answer of a limited operation carries.
import assert from 'node:assert/strict';
import type { LightMyRequestResponse } from 'fastify';

/** A clock for buildApp's `clock` option (useTestApp's second argument): rate limits are counted at its time. */
export function testClock(start = new Date('2026-11-20T12:00:00.000Z')) {
  let now = start;
  return {
    start,
    clock: () => now,
    /** Moves the clock to `ms` milliseconds after `start`. */
    at: (ms: number) => (now = new Date(start.getTime() + ms)),
  };
}

export function assertLimitHeaders(response: LightMyRequestResponse, limit: number, remaining: number) {
  assert.equal(response.headers['x-ratelimit-limit'], String(limit), response.body);
  assert.equal(response.headers['x-ratelimit-remaining'], String(remaining), response.body);
  assert.equal(response.headers['x-ratelimit-reset'], undefined);
  if (response.statusCode !== 429) assert.equal(response.headers['retry-after'], undefined);
}
