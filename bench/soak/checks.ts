// The soak's invariants over what the client saw and what the database holds: no bot over a
// limit in any window, client, rate_limit_hits and each key's window agreeing exactly (the client
// IPs' caps holding exactly the admitted requests), no rows beyond a limit, one write per
// Idempotency-Key.
import { sql } from 'kysely';
import type { LimitedAction } from '../../src/config.js';
import type { Db } from '../../src/platform/db/schema.js';
import { windowSeconds } from '../../src/platform/admission/sliding-window.js';
import { listOperations } from '../../src/platform/spec/openapi.js';
import { limits, seconds, spec } from './settings.js';
import type { WebhookReceiver } from '../../test/helpers/webhook-receiver.js';
import type { Stats } from './traffic.js';

/** The actions limited per bot (and capped per client IP), as openapi.yaml's `x-rate-limit` says. */
const botActions = new Set<string>(
  listOperations(spec).flatMap((op) => {
    const limit = op.operation['x-rate-limit'];
    return limit?.per === 'bot' ? [limit.action] : [];
  }),
);

/** The most admitted in any `windowSeconds` span of sorted times (ms): a sliding window over them. */
function maxInWindow(times: number[]): number {
  let most = 0;
  for (let first = 0, last = 0; last < times.length; last++) {
    while (times[last]! - times[first]! >= windowSeconds * 1000) first++;
    most = Math.max(most, last - first + 1);
  }
  return most;
}

export function checkClientLimits(stats: Stats) {
  const problems: string[] = [];
  let refusedKeys = 0;
  for (const [key, { action, at, refused }] of stats.admitted) {
    at.sort((a, b) => a - b);
    const most = maxInWindow(at);
    if (most > limits[action])
      problems.push(`${key}: ${most} admitted within ${windowSeconds} s, limit ${limits[action]}`);
    // A run shorter than the window never sees a counted request leave it, so a refused key must
    // have had exactly its limit admitted: not one more, and not one fewer.
    if (refused > 0) {
      refusedKeys++;
      if (seconds < windowSeconds && at.length !== limits[action])
        problems.push(`${key}: refused ${refused} times with ${at.length} admitted, limit ${limits[action]}`);
    }
  }
  if (refusedKeys === 0)
    problems.push('no key ever reached its limit: the soak did not exercise the limiter');
  if (problems.length > 0) throw new Error(problems.slice(0, 10).join('\n'));
}

export async function checkRecordedHits(db: Db, stats: Stats) {
  const { rows } = await sql<{ key: string; hits: number; most: number }>`
    select key, count(*)::int as hits, max(in_window)::int as most from (
      select key, count(*) over (partition by key order by at range between ${`${windowSeconds * 1000 - 1} milliseconds`}::interval preceding and current row) as in_window
      from rate_limit_hits) h
    group by key`.execute(db);
  const recorded = new Map(rows.map((row) => [row.key, row]));
  const problems: string[] = [];
  for (const row of rows) {
    const action = row.key.split(':')[0] as LimitedAction;
    if (row.most > limits[action])
      problems.push(
        `${row.key}: ${row.most} hits recorded within ${windowSeconds} s, limit ${limits[action]}`,
      );
  }
  for (const [key, { at }] of stats.admitted) {
    const hits = recorded.get(key)?.hits ?? 0;
    if (hits !== at.length)
      problems.push(`${key}: the client saw ${at.length} admitted, rate_limit_hits holds ${hits}`);
  }
  // A bot write counts against its client IP's cap and its own limit together, both or neither:
  // the caps of an action hold exactly the hits its bots' limits hold (a refused request is in neither).
  const totals = new Map<string, { own: number; cap: number }>();
  for (const row of rows) {
    const [name] = row.key.split(':') as [string];
    const action = name.replace(/-per-ip$/, '');
    if (!botActions.has(action)) continue;
    const total = totals.get(action) ?? { own: 0, cap: 0 };
    total[name === action ? 'own' : 'cap'] += row.hits;
    totals.set(action, total);
  }
  for (const [action, { own, cap }] of totals) {
    if (own !== cap)
      problems.push(`${action}: the bots' limits hold ${own} hits, the client IPs' caps ${cap}`);
  }
  // Each key's window row counts exactly the hits the log holds for it (no hit has left a window
  // in a soak shorter than one).
  const windows = await db.selectFrom('rate_limit_windows').select(['key', 'hits']).execute();
  const counted = new Map(windows.map((row) => [row.key, row.hits]));
  for (const row of rows) {
    if (counted.get(row.key) !== row.hits)
      problems.push(
        `${row.key}: its window counts ${counted.get(row.key)}, rate_limit_hits holds ${row.hits}`,
      );
  }
  if (problems.length > 0) throw new Error(problems.slice(0, 10).join('\n'));
}

export async function checkWrittenRows(db: Db, since: Date) {
  const { rows } = await sql<{ what: string; bot_id: string; most: number }>`
    select what, bot_id, max(in_window)::int as most from (
      select 'posts' as what, bot_id, count(*) over w as in_window from posts where created_at >= ${since}
        window w as (partition by bot_id order by created_at range between '3599.999 seconds'::interval preceding and current row)
      union all
      select 'comments', bot_id, count(*) over w from comments where created_at >= ${since}
        window w as (partition by bot_id order by created_at range between '3599.999 seconds'::interval preceding and current row)
      union all
      select 'assessments', bot_id, count(*) over w from assessments where created_at >= ${since}
        window w as (partition by bot_id order by created_at range between '3599.999 seconds'::interval preceding and current row)
    ) x group by what, bot_id`.execute(db);
  const over = rows.filter((row) => row.most > limits[row.what as LimitedAction]);
  if (rows.length === 0) throw new Error('no rows were written during the soak');
  if (over.length > 0)
    throw new Error(
      over
        .slice(0, 10)
        .map((row) => `${row.what} of ${row.bot_id}: ${row.most} within ${windowSeconds} s`)
        .join('\n'),
    );
}

/** However often a request with an Idempotency-Key was sent, its successes all name one write. */
export function checkOneWritePerIdempotencyKey(stats: Stats) {
  const problems: string[] = [];
  for (const [key, made] of stats.madeByIdempotencyKey) {
    if (made.size > 1) problems.push(`${key}: ${made.size} writes (${[...made].slice(0, 3).join(', ')})`);
  }
  if (stats.madeByIdempotencyKey.size === 0) problems.push('no request with an Idempotency-Key succeeded');
  if (problems.length > 0) throw new Error(problems.slice(0, 10).join('\n'));
}

/** Waits, up to `timeoutMs`, until no webhook delivery is pending; whether it got there. */
export async function outboxDrained(db: Db, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { rows } = await sql<{ pending: number }>`
      select count(*)::int as pending from webhook_deliveries where state = 'pending'`.execute(db);
    if (rows[0]!.pending === 0) return true;
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** Every delivery delivered, each received one verified, none received twice at once. */
export async function checkWebhookDeliveries(db: Db, receiver: WebhookReceiver, drained: boolean) {
  const problems: string[] = [];
  const { rows } = await sql<{ state: string; n: number }>`
    select state, count(*)::int as n from webhook_deliveries group by state`.execute(db);
  const states = Object.fromEntries(rows.map((row) => [row.state, row.n]));
  if (!drained) problems.push(`the outbox did not drain within a minute: ${JSON.stringify(states)}`);
  if ((states.failed ?? 0) > 0) problems.push(`${states.failed} deliveries failed`);
  if ((states.delivered ?? 0) === 0)
    problems.push('no delivery was made: the soak did not exercise webhooks');
  const refused = receiver.received.filter((got) => 'error' in got.verified);
  if (refused.length > 0)
    problems.push(`${refused.length} deliveries did not verify, e.g. ${JSON.stringify(refused[0])}`);
  if (receiver.overlapping.length > 0)
    problems.push(
      `${receiver.overlapping.length} deliveries sent twice at once, e.g. ${receiver.overlapping[0]}`,
    );
  const distinct = new Set(receiver.received.map((got) => got.id)).size;
  if (distinct < (states.delivered ?? 0))
    problems.push(`${states.delivered} deliveries recorded as delivered, ${distinct} received`);
  if (problems.length > 0) throw new Error(problems.join('\n'));
}
