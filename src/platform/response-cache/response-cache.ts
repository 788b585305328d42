// The pages kept in this process's memory (see ./README.md): serialized bodies with their headers,
// by key, bounded in entries and bytes. An entry is given out only while it is younger than the
// time to live (measured from the moment the read that made it began) and no write on this
// instance has happened since that read began (the generation). Concurrent misses on one key
// share one read (single flight), so a write followed by fifty readers costs one query, not fifty.
import type { IncomingHttpHeaders } from 'node:http';
import type { ResponseCacheLimits } from '../../config.js';

/** A page as it was sent: the bytes, the headers to send with them, and its entity tag. */
export interface CachedPage {
  body: Buffer;
  /** The body compressed, by content coding (`br`, `gzip`); none for a body too small to compress. */
  compressed: Partial<Record<string, Buffer>>;
  /** Every header of the answer but those of one answer alone (its request id, date, length, cookies). */
  headers: Record<string, string>;
  etag: string;
  /** The route that kept it. */
  route: PageRoute;
}

/** What a route that keeps pages says of them. */
export interface PageRoute {
  /** The page's name, in metrics: `feed`, `lobby`. */
  page: string;
  /** The operation its answers are counted under in the request metrics. */
  operationId: string;
  /**
   * Whether a request with these headers may be answered with the page as it arrives, before the
   * router: the URL names the whole page, except where the page is only for anonymous readers.
   */
  answersBeforeRouter(headers: IncomingHttpHeaders): boolean;
}

/** A read that will fill one key: the request that began it completes or abandons it. */
export interface Fill {
  complete(page: CachedPage): void;
  abandon(): void;
}

interface Entry {
  page: CachedPage;
  generation: number;
  /** When the read that made it began: its data is at least this old. */
  readAt: number;
  bytes: number;
}

interface Filling {
  generation: number;
  readAt: number;
  done: Promise<CachedPage | undefined>;
  settle(page: CachedPage | undefined): void;
}

export type Lookup =
  { hit: CachedPage } | { wait: Promise<CachedPage | undefined> } | { fill: Fill } | { uncached: true };

export class ResponseCache {
  readonly #limits: ResponseCacheLimits;
  readonly #now: () => number;
  readonly #entries = new Map<string, Entry>();
  readonly #filling = new Map<string, Filling>();
  #generation = 0;
  #bytes = 0;

  constructor(limits: ResponseCacheLimits, now: () => number = () => performance.now()) {
    this.#limits = limits;
    this.#now = now;
  }

  get entries(): number {
    return this.#entries.size;
  }

  get bytes(): number {
    return this.#bytes;
  }

  /**
   * The page under `key` if one may be given out; else the read already making it (wait for it),
   * or a fill for the caller to make it.
   */
  lookup(key: string): Lookup {
    if (this.#limits.ttlMs <= 0) return { uncached: true };
    const now = this.#now();
    const entry = this.#entries.get(key);
    if (entry !== undefined) {
      if (entry.generation === this.#generation && now - entry.readAt < this.#limits.ttlMs)
        return { hit: entry.page };
      this.#remove(key, entry);
    }
    const filling = this.#filling.get(key);
    if (
      filling !== undefined &&
      filling.generation === this.#generation &&
      now - filling.readAt < this.#limits.ttlMs
    )
      return { wait: filling.done };
    return { fill: this.#beginFill(key, now) };
  }

  /** The page under `key` if one may be given out now; never starts a read. */
  peek(key: string): CachedPage | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined || entry.generation !== this.#generation) return undefined;
    return this.#now() - entry.readAt < this.#limits.ttlMs ? entry.page : undefined;
  }

  /** A write on this instance: nothing read before it is given out again. */
  invalidate(): void {
    this.#generation++;
    this.#entries.clear();
    this.#bytes = 0;
  }

  #beginFill(key: string, readAt: number): Fill {
    let settle!: (page: CachedPage | undefined) => void;
    const done = new Promise<CachedPage | undefined>((resolve) => (settle = resolve));
    const filling: Filling = { generation: this.#generation, readAt, done, settle };
    this.#filling.set(key, filling);
    const finish = (page: CachedPage | undefined) => {
      if (this.#filling.get(key) === filling) this.#filling.delete(key);
      filling.settle(page);
    };
    return {
      complete: (page) => {
        // Read before a write of this instance: correct for whoever asked before it, never kept.
        if (filling.generation === this.#generation) this.#store(key, page, filling);
        finish(page);
      },
      abandon: () => finish(undefined),
    };
  }

  #store(key: string, page: CachedPage, filling: Filling): void {
    let bytes = page.body.length + page.etag.length + key.length;
    for (const form of Object.values(page.compressed)) bytes += form?.length ?? 0;
    if (bytes > this.#limits.maxBytes) return;
    const previous = this.#entries.get(key);
    if (previous !== undefined) this.#remove(key, previous);
    this.#entries.set(key, { page, generation: filling.generation, readAt: filling.readAt, bytes });
    this.#bytes += bytes;
    // Oldest first: the pages read most are refilled every time to live, so they stay young.
    for (const [oldKey, oldEntry] of this.#entries) {
      if (this.#entries.size <= this.#limits.maxEntries && this.#bytes <= this.#limits.maxBytes) break;
      this.#remove(oldKey, oldEntry);
    }
  }

  #remove(key: string, entry: Entry): void {
    this.#entries.delete(key);
    this.#bytes -= entry.bytes;
  }
}
