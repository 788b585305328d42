// Background jobs: the one mechanism that runs every periodic job of the server (the list is
// src/jobs.ts). Each job ticks on this instance's timer. A job that runs on `one instance` does its
// work only when its tick claims the period (../db/periodic-work.ts): once per period however many
// instances share the database. A job that runs on `every instance` works on what this instance
// holds (its streams, its share of the webhook outbox). A tick still running when the next is due
// is not doubled. Started once the app is ready; when shutdown begins no tick starts, and onClose
// waits for those under way (each bounded by its database deadlines).
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { claimPeriodicRun, type PeriodicJob } from '../db/periodic-work.js';
import type { Db } from '../db/schema.js';

export type Job = {
  everyMs: number;
  /** Its work; what it answers is ignored. */
  run(): Promise<unknown>;
} & ({ name: PeriodicJob; runsOn: 'one instance' } | { name: string; runsOn: 'every instance' });

export default fp<{ db: Db; jobs: Job[] }>(
  async function backgroundJobs(app: FastifyInstance, { db, jobs }) {
    const timers: NodeJS.Timeout[] = [];
    const running = new Set<Promise<void>>();
    let stopped = false;

    function tick(job: Job, busy: { now: boolean }) {
      if (stopped || busy.now) return;
      busy.now = true;
      const work = (async () => {
        // A slightly early tick (timers drift) must not miss its claim by a hair.
        if (job.runsOn === 'one instance' && !(await claimPeriodicRun(db, job.name, job.everyMs * 0.9)))
          return;
        await job.run();
      })()
        .catch((error: unknown) =>
          app.log.warn({ err: error, job: job.name }, `background job ${job.name} failed`),
        )
        .finally(() => {
          busy.now = false;
          running.delete(work);
        });
      running.add(work);
    }

    app.addHook('onReady', async () => {
      for (const job of jobs) {
        const busy = { now: false };
        timers.push(setInterval(() => tick(job, busy), job.everyMs).unref());
      }
    });
    app.addHook('preClose', async () => {
      stopped = true;
      for (const timer of timers) clearInterval(timer);
    });
    app.addHook('onClose', async () => {
      await Promise.all(running);
    });
  },
  { name: 'background-jobs' },
);
