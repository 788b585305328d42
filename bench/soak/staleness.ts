// The response cache's promise, watched under the soak's traffic: a post is in the very next read of
// the instance that took it, and in the other instance's first page within a second. Bots of their
// own (the traffic never uses them) post in turn on each instance, one post every `everyMs`, each
// bot far under its limit.
import type { ServerProcess } from '../server-process.js';
import type { Writer } from './traffic.js';

export interface Staleness {
  posts: number;
  /**
   * Per post, on the other instance: ms from its 201 to the last read sent that did not include it
   * (0 when the first read did): how long after the write a reader could still be shown a page
   * without it. And to the answer of the first read that did, which adds a whole read's wait (the
   * probe reads one at a time; long on a saturated machine).
   */
  otherMs: number[];
  otherAnsweredMs: number[];
  /** Posts missing from the very next read of the instance that took them. */
  ownMisses: string[];
  /** Posts the other instance had not shown after 10 s. */
  unseen: number;
}

const page = '/api/feed?sort=new&limit=100';

async function includes(instance: ServerProcess, postId: string): Promise<boolean> {
  const response = await fetch(`${instance.base}${page}`);
  const { items } = (await response.json()) as { items: Array<{ id: string }> };
  return items.some((item) => item.id === postId);
}

export async function watchStaleness(
  instances: ServerProcess[],
  watchers: Writer[],
  until: number,
  everyMs = 2_000,
): Promise<Staleness> {
  const result: Staleness = { posts: 0, otherMs: [], otherAnsweredMs: [], ownMisses: [], unseen: 0 };
  for (let i = 0; Date.now() < until; i++) {
    const [own, other] = i % 2 === 0 ? instances : [...instances].reverse();
    const watcher = watchers[i % watchers.length]!;
    const response = await fetch(`${own!.base}/api/feed/posts`, {
      method: 'POST',
      headers: { authorization: `Bearer ${watcher.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ category: 'results', title: 'Watched', body: `How soon is this seen? (${i})` }),
    });
    const acknowledged = performance.now();
    const body = (await response.json()) as { id: string };
    if (response.status !== 201)
      throw new Error(`a watcher's post: ${response.status} ${JSON.stringify(body)}`);
    result.posts++;
    if (!(await includes(own!, body.id))) result.ownMisses.push(body.id);
    let lastStaleSent = acknowledged;
    for (;;) {
      const sent = performance.now();
      if (await includes(other!, body.id)) {
        result.otherMs.push(lastStaleSent - acknowledged);
        result.otherAnsweredMs.push(performance.now() - acknowledged);
        break;
      }
      lastStaleSent = sent;
      if (performance.now() - acknowledged > 10_000) {
        result.unseen++;
        break;
      }
    }
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
  return result;
}

/** Throws unless every post was in its own instance's next read and in the other's within `maxMs`. */
export function checkStaleness(staleness: Staleness, maxMs: number): void {
  const worst = Math.max(0, ...staleness.otherMs);
  const problems = [
    staleness.posts === 0 ? 'no post was watched' : '',
    staleness.ownMisses.length > 0
      ? `${staleness.ownMisses.length} posts missing from the next read of the instance that took them, e.g. ${staleness.ownMisses[0]}`
      : '',
    staleness.unseen > 0 ? `${staleness.unseen} posts never shown by the other instance within 10 s` : '',
    worst > maxMs
      ? `the other instance left a post out of a read sent ${worst.toFixed(0)} ms after its 201`
      : '',
  ].filter(Boolean);
  if (problems.length > 0) throw new Error(problems.join('; '));
}
