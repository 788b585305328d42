// Periodic work done once per period across every instance sharing the database, not once per
// instance (the background jobs of ../jobs/plugin.ts that run on `one instance`). Each instance ticks
// on its own timer; a tick does the work only if it claims the run: one statement moves the job's last
// run forward unless another instance did within the period. The claim is its own short transaction
// (safe behind a transaction pooler, holding no lock while the work runs).
import { sql } from 'kysely';
import type { Db } from './schema.js';

export type PeriodicJob =
  | 'prune-rate-limit-hits'
  | 'prune-sessions'
  | 'prune-idempotency-keys'
  | 'prune-webhook-deliveries'
  | 'lift-ended-suspensions'
  | 'expire-pending-items'
  | 'prune-post-body-hashes'
  | 'prune-feed-events'
  | 'recompute-trust-levels'
  | 'forget-conversations';

/** Whether this instance may run `job` now: true for one caller per `everyMs`, whoever asks. */
export async function claimPeriodicRun(db: Db, job: PeriodicJob, everyMs: number): Promise<boolean> {
  const { rows } = await sql<{ name: string }>`
    insert into periodic_jobs as job (name, last_run_at) values (${job}, now())
    on conflict (name) do update set last_run_at = excluded.last_run_at
      where job.last_run_at <= excluded.last_run_at - make_interval(secs => ${everyMs / 1000})
    returning name`.execute(db);
  return rows.length === 1;
}
