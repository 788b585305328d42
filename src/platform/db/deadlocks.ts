// Writers take row locks post first, then bots in id order, but a deletion cannot know every row
// it will lock before it starts (a vote by the bot being deleted may commit meanwhile), so a
// deadlock remains possible, which Postgres breaks by aborting one side (40P01). That side is run
// again from the start: nothing of it was kept. Pass a whole transaction, or a single statement
// run outside one (a write's one statement, its admission included: the abort took back its hits
// too); never a statement inside a transaction, which the abort has ended.
const deadlockDetected = '40P01';
const attempts = 3;

export async function retryingDeadlocks<T>(work: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (error) {
      if (attempt >= attempts || (error as { code?: unknown }).code !== deadlockDetected) throw error;
    }
  }
}
