// Where public reads go: a streaming replica (DATABASE_READ_URL) while it is fresh enough, the primary
// otherwise. Writes, admissions, a bot's own endpoints, the heartbeat and sessions never come here:
// they always use the primary.
//
// Freshness is measured by the server itself, every quarter of the lag bound (at most 250 ms): it
// reads the primary's WAL insert position, then asks the replica whether it has replayed that far.
// If it has, the replica holds every transaction committed before that reading, so its staleness
// is at most the time since. Past DATABASE_READ_MAX_LAG_MS, while the replica does not answer, and
// for a request whose credential wrote through this instance within the bound plus a second (so a
// bot reads its own writes), reads go to the primary. A read the replica fails is retried on the
// primary at once: a dying replica never turns a read into a 5xx.
import { createHash } from 'node:crypto';
import {
  Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  sql,
  type CompiledQuery,
  type DatabaseConnection,
  type Driver,
  type QueryResult,
  type TransactionSettings,
} from 'kysely';
import { isDatabaseUnavailable } from './unavailable.js';
import type { Database, Db } from './schema.js';

/** The headers that identify a reader: its bearer key, or its session cookie. */
export interface ReaderHeaders {
  authorization?: string | undefined;
  cookie?: string | undefined;
}

export type ReadTarget = 'replica' | 'primary';
/** Why a public read went where it did (a metric's label). */
export type ReadReason = 'fresh' | 'own_writes' | 'lagging' | 'replica_down';

export interface ReadRouting {
  /** The database a public read of a request with these headers goes to. */
  readsFor(headers: ReaderHeaders): Db;
  /**
   * The database for a read whose answer is shared by every reader (a page the response cache keeps):
   * the primary while anyone wrote through this instance within the own-writes window, so that no
   * writer is shown a shared page read from a replica that had not yet replayed their write.
   */
  readsForShared(): Db;
  /** A write by a request with these headers: that reader's reads use the primary for a while. */
  wrote(headers: ReaderHeaders): void;
  /** Whether a replica is configured at all. */
  readonly replicated: boolean;
  /** The replica's state, for /metrics; `error`: why its last check failed, while it is down. */
  state(): { up: boolean; lagMs: number; error?: unknown };
  /**
   * At start: why the replica cannot serve this primary's reads (another cluster, another
   * database), or undefined when it can.
   */
  mismatch(): Promise<string | undefined>;
  /** Called for every routed read and every fallback (metrics). */
  onRead?: (target: ReadTarget, reason: ReadReason) => void;
  onFallback?: () => void;
  close(): Promise<void>;
}

/** No replica: every read goes to the primary. */
export function primaryOnly(primary: Db): ReadRouting {
  return {
    readsFor: () => primary,
    readsForShared: () => primary,
    wrote: () => {},
    replicated: false,
    state: () => ({ up: false, lagMs: 0 }),
    mismatch: async () => undefined,
    close: async () => {},
  };
}

/** The session cookie's value (bp_session, or __Host-bp_session over HTTPS). */
const sessionCookie = /(?:^|;\s*)(?:__Host-)?bp_session=([^;]+)/;
/** Readers remembered as recent writers, at most (the oldest are forgotten first). */
const maxRecentWriters = 100_000;
/** A probe of the replica that takes longer than this counts as the replica being down. */
const probeDeadlineMs = 1_000;

export interface ReplicaOptions {
  primary: Db;
  /** A Kysely over the replica's own pool: the monitor's probes. */
  replica: Db;
  /** The replica's driver and the primary's, for the Kysely that reads replica-first. */
  replicaDriver: Driver;
  primaryDriver: Driver;
  maxLagMs: number;
  now?: () => number;
}

/** Why the replica is not a copy of the primary's database, or undefined when it is. */
async function replicaMismatch(primary: Db, replica: Db): Promise<string | undefined> {
  // A streaming replica is a copy of the primary's whole cluster: the same system identifier.
  // Within it, reads must name the same database (a pooler's alias may differ; this may not).
  const identify = (db: Db) =>
    sql<{ cluster: string; database: string }>`
      select system_identifier::text as cluster, current_database() as database
      from pg_control_system()`
      .execute(db)
      .then(({ rows }) => rows[0]!);
  const [ours, theirs] = await Promise.all([identify(primary), identify(replica)]);
  if (ours.cluster !== theirs.cluster)
    return 'it is not a streaming replica of the server DATABASE_URL names (another system identifier)';
  if (ours.database !== theirs.database)
    return `it names the database "${theirs.database}", DATABASE_URL names "${ours.database}"`;
  return undefined;
}

/** Whether the replica has replayed everything the primary had written when asked, within the probe's deadline. */
async function replicaCaughtUp(primary: Db, replica: Db): Promise<boolean> {
  const within = <T>(query: Promise<T>) =>
    Promise.race([
      query,
      new Promise<never>((_, reject) =>
        setTimeout(() => reject(new Error('probe deadline')), probeDeadlineMs).unref(),
      ),
    ]);
  const { rows } = await within(
    sql<{ lsn: string }>`select pg_current_wal_insert_lsn()::text as lsn`.execute(primary),
  );
  const position = rows[0]!.lsn;
  // A server that is not in recovery is a primary: pointed at itself, it is always current.
  const { rows: replayed } = await within(
    sql<{ caught_up: boolean }>`
      select coalesce(pg_last_wal_replay_lsn() >= ${position}::pg_lsn, not pg_is_in_recovery()) as caught_up`.execute(
      replica,
    ),
  );
  return replayed[0]!.caught_up;
}

/** Starts measuring the replica; resolves once the first measurement decided where reads go. */
export async function replicaRouting(options: ReplicaOptions): Promise<ReadRouting> {
  const { primary, replica, maxLagMs } = options;
  const now = options.now ?? Date.now;
  /** The replica holds every transaction committed before this time. */
  let freshAsOf = Number.NEGATIVE_INFINITY;
  let up = false;
  let lastError: unknown;
  const ownWritesMs = maxLagMs + 1_000;
  const recentWriters = new Map<string, number>();
  /** Until when anyone's write through this instance may be missing from the replica. */
  let anyWriteUntil = Number.NEGATIVE_INFINITY;
  const digest = (credential: string) => createHash('sha256').update(credential).digest('base64url');
  // A person is their session cookie alone: other cookies (a proxy's, an analytics tool's) may
  // change between requests without making them someone else.
  const credentialOf = (headers: ReaderHeaders) =>
    headers.authorization ?? (headers.cookie && sessionCookie.exec(headers.cookie)?.[1]) ?? undefined;

  const routing: ReadRouting = {
    replicated: true,
    readsFor(headers) {
      const credential = credentialOf(headers);
      let reason: ReadReason = 'fresh';
      if (credential !== undefined && recentWriters.size > 0) {
        const until = recentWriters.get(digest(credential));
        if (until !== undefined && until > now()) reason = 'own_writes';
      }
      if (reason === 'fresh' && !up) reason = 'replica_down';
      if (reason === 'fresh' && now() - freshAsOf > maxLagMs) reason = 'lagging';
      const target: ReadTarget = reason === 'fresh' ? 'replica' : 'primary';
      routing.onRead?.(target, reason);
      return target === 'replica' ? replicaFirst : primary;
    },
    readsForShared() {
      if (anyWriteUntil > now()) {
        routing.onRead?.('primary', 'own_writes');
        return primary;
      }
      return routing.readsFor({});
    },
    wrote(headers) {
      anyWriteUntil = now() + ownWritesMs;
      const credential = credentialOf(headers);
      if (credential === undefined) return;
      const key = digest(credential);
      recentWriters.delete(key);
      recentWriters.set(key, now() + ownWritesMs);
      if (recentWriters.size > maxRecentWriters) {
        const oldest = recentWriters.keys().next().value;
        if (oldest !== undefined) recentWriters.delete(oldest);
      }
    },
    state: () => ({
      up,
      lagMs: up ? Math.max(0, now() - freshAsOf) : Number.POSITIVE_INFINITY,
      ...(up ? {} : { error: lastError }),
    }),
    mismatch: () => replicaMismatch(primary, replica),
    async close() {
      clearInterval(timer);
      await probing;
      await replicaFirst.destroy();
    },
  };

  const fellBack = (replicaDown: boolean) => {
    if (replicaDown) up = false;
    routing.onFallback?.();
  };
  const replicaFirst = new Kysely<Database>({
    dialect: {
      createAdapter: () => new PostgresAdapter(),
      createDriver: () => new ReplicaFirstDriver(options.replicaDriver, options.primaryDriver, fellBack),
      createIntrospector: (db) => new PostgresIntrospector(db),
      createQueryCompiler: () => new PostgresQueryCompiler(),
    },
  });

  async function probe() {
    const readAt = now();
    try {
      const caughtUp = await replicaCaughtUp(primary, replica);
      up = true;
      if (caughtUp) freshAsOf = readAt;
    } catch (error) {
      up = false;
      lastError = error;
    }
  }
  let probing: Promise<void> | undefined = probe();
  await probing;
  probing = undefined;
  // One probe at a time: a replica that takes its time to answer is not asked again meanwhile.
  const timer = setInterval(
    () => {
      probing ??= probe().finally(() => (probing = undefined));
    },
    Math.max(25, Math.min(250, maxLagMs / 4)),
  ).unref();
  return routing;
}

/** Reads on the replica; a read it fails for want of a database goes to the primary instead. */
class ReplicaFirstDriver implements Driver {
  constructor(
    private readonly replica: Driver,
    private readonly primary: Driver,
    /** A read went to the primary instead; `replicaDown` unless the replica merely cancelled it. */
    readonly fellBack: (replicaDown: boolean) => void,
  ) {}

  async init() {
    await this.replica.init();
    await this.primary.init();
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    try {
      return new ReplicaConnection(await this.replica.acquireConnection(), this);
    } catch (error) {
      if (!isDatabaseUnavailable(error)) throw error;
      this.fellBack(true);
      return new PrimaryConnection(await this.primary.acquireConnection());
    }
  }

  async onPrimary<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    const connection = await this.primary.acquireConnection();
    try {
      return await connection.executeQuery<R>(query);
    } finally {
      await this.primary.releaseConnection(connection);
    }
  }

  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings) {
    await this.driverOf(connection).beginTransaction(innerOf(connection), settings);
  }
  async commitTransaction(connection: DatabaseConnection) {
    await this.driverOf(connection).commitTransaction(innerOf(connection));
  }
  async rollbackTransaction(connection: DatabaseConnection) {
    await this.driverOf(connection).rollbackTransaction(innerOf(connection));
  }
  async releaseConnection(connection: DatabaseConnection) {
    await this.driverOf(connection).releaseConnection(innerOf(connection));
  }
  /** The drivers are the databases' own: they are closed with them, not here. */
  async destroy() {}

  private driverOf(connection: DatabaseConnection): Driver {
    return connection instanceof ReplicaConnection ? this.replica : this.primary;
  }
}

function innerOf(connection: DatabaseConnection): DatabaseConnection {
  return (connection as ReplicaConnection | PrimaryConnection).inner;
}

class ReplicaConnection implements DatabaseConnection {
  constructor(
    readonly inner: DatabaseConnection,
    private readonly driver: ReplicaFirstDriver,
  ) {}

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    try {
      return await this.inner.executeQuery<R>(query);
    } catch (error) {
      // 40001 on a replica: the query was cancelled for a conflict with replaying the primary's WAL.
      const conflict = (error as { code?: unknown } | null)?.code === '40001';
      if (!conflict && !isDatabaseUnavailable(error)) throw error;
      this.driver.fellBack(!conflict);
      return this.driver.onPrimary<R>(query);
    }
  }

  streamQuery<R>(query: CompiledQuery, chunkSize?: number): AsyncIterableIterator<QueryResult<R>> {
    return this.inner.streamQuery<R>(query, chunkSize);
  }
}

class PrimaryConnection implements DatabaseConnection {
  constructor(readonly inner: DatabaseConnection) {}

  executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    return this.inner.executeQuery<R>(query);
  }

  streamQuery<R>(query: CompiledQuery, chunkSize?: number): AsyncIterableIterator<QueryResult<R>> {
    return this.inner.streamQuery<R>(query, chunkSize);
  }
}
