// Connections to a Postgres server, safe behind a transaction pooler (PgBouncer in transaction mode)
// and on a network that may lose packets:
// - No session state: nothing is sent as a startup parameter or set outside a transaction (a pooler
//   hands the next transaction to another backend). The statement timeout is set per transaction
//   (`set local`, in the same round trip as `begin`), and so is the time a transaction may sit idle;
//   single statements outside a transaction get their timeout from the role (docs/deploy.md).
// - Statements are unnamed unless `named` is asked for (prepared-statements.ts): a pooler would send
//   a name prepared on one backend to another.
// - Every query has a client-side deadline, because a server-side timeout cannot fire when the
//   network drops packets. A connection whose query misses it is destroyed, and every idle
//   connection that has not answered since is replaced before it is handed out again: one lost
//   socket means the network may have lost them all. The server is asked to cancel the abandoned
//   query (a CancelRequest, which poolers pass on), or it would run on for nobody.
// - Closing never waits on a socket that will not answer.
import { connect as connectTcp } from 'node:net';
import type { PostgresPool, PostgresPoolClient, PostgresQueryResult } from 'kysely';
import pg from 'pg';
import { statementNames } from './prepared-statements.js';
import { poolTypes } from './timestamps.js';

export interface PostgresPoolOptions {
  url: string;
  /** Connections held at most. */
  max: number;
  /** Server-side limit per statement (set per transaction); the client's deadline adds a margin. 0: none. */
  statementTimeoutMs: number;
  preparedStatements: 'named' | 'unnamed';
}

/** What a client-side deadline adds to the server's statement timeout, so the server's fires first. */
const deadlineMarginMs = 1_000;

/** A closing pool waits this long for its connections to finish before it cuts them. */
const closeGraceMs = 2_000;

export interface PooledPostgres {
  /** The pool as Kysely's PostgresDialect takes it. */
  pool: PostgresPool;
  stats(): { total: number; idle: number; waiting: number };
  close(): Promise<void>;
}

export function postgresPool(options: PostgresPoolOptions): PooledPostgres {
  const pool = new pg.Pool({
    connectionString: options.url,
    max: options.max,
    // Bounded waits: a database that stops answering yields 503s, not requests that hang.
    connectionTimeoutMillis: 5_000,
    // 0: no limit (migrations), on either side.
    ...(options.statementTimeoutMs > 0
      ? { query_timeout: options.statementTimeoutMs + deadlineMarginMs }
      : {}),
    // Idle sockets are probed by TCP, so one the network lost is found even without traffic.
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
    types: poolTypes,
  });
  // A client losing its server (a restart) must not crash the process: an idle one is dropped
  // by the pool, and one checked out (mid-transaction) fails its current or next query, which the
  // request answers with a 503. Its own 'error' event would otherwise be uncaught.
  pool.on('error', () => {});
  /** Every connection the pool opened and has not destroyed, with when it last answered. */
  const lastAnswered = new Map<pg.PoolClient, number>();
  pool.on('connect', (client) => {
    client.on('error', () => {});
    lastAnswered.set(client, Date.now());
  });
  pool.on('remove', (client) => lastAnswered.delete(client));
  /** Connections that have not answered since this time are suspect: a query missed its deadline. */
  let suspectBefore = 0;

  const destroy = (client: pg.PoolClient, reason: Error) => {
    lastAnswered.delete(client);
    client.release(reason);
    // The pool ends it politely (a Terminate, then waiting for the server to close): on a lost
    // socket that wait never ends, so the socket is cut here.
    (client as unknown as { connection: { stream: { destroy(): void } } }).connection.stream.destroy();
  };

  const nameOf = options.preparedStatements === 'named' ? statementNames() : undefined;
  // A transaction whose client vanished (a lost network) must not hold its locks for the hours TCP
  // takes to notice: it is ended once idle for as long as a statement may run.
  const beginWithTimeout =
    `; set local statement_timeout = ${options.statementTimeoutMs}` +
    `; set local idle_in_transaction_session_timeout = ${options.statementTimeoutMs}`;

  async function connect(): Promise<PostgresPoolClient> {
    let client = await pool.connect();
    while ((lastAnswered.get(client) ?? 0) < suspectBefore) {
      destroy(client, new Error('replaced: a query on another connection missed its deadline'));
      client = await pool.connect();
    }
    let broken: Error | undefined;
    let cancelled: Promise<void> = Promise.resolve();
    const answered = <T>(result: T): T => {
      lastAnswered.set(client, Date.now());
      return result;
    };
    const failed = (error: unknown): never => {
      if (error instanceof Error && /Query read timeout/.test(error.message)) {
        broken = error;
        suspectBefore = Date.now();
        cancelled = cancelOnServer(client);
      }
      nameOf?.forget(error);
      throw error;
    };
    return {
      query: ((textOrCursor: string | object, values?: readonly unknown[]) => {
        if (typeof textOrCursor !== 'string') return client.query(textOrCursor as pg.Submittable);
        // `begin` and `start transaction ...` carry the transaction's statement timeout along, as one
        // simple query: no extra round trip.
        if (/^(begin|start transaction)\b[^;]*$/i.test(textOrCursor) && (values?.length ?? 0) === 0) {
          return client
            .query(textOrCursor + beginWithTimeout)
            .then((results) => answered((results as unknown as pg.QueryResult[])[0]), failed);
        }
        const name = nameOf?.(textOrCursor);
        const query =
          name === undefined
            ? client.query(textOrCursor, values as unknown[])
            : client.query({ name, text: textOrCursor, values: values as unknown[] });
        return query.then(answered, failed) as Promise<PostgresQueryResult<unknown>>;
      }) as PostgresPoolClient['query'],
      // A pooler forwards a cancel only while the client it names is connected: the connection is
      // cut once the cancel is sent (its slot stays taken until then, at most the cancel's deadline).
      release: () => {
        const error = broken;
        if (error) void cancelled.then(() => destroy(client, error));
        else client.release();
      },
    };
  }

  return {
    pool: { connect, end: async () => {} },
    stats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
    async close() {
      // Checked-out connections are given back within their query deadline; a connection left
      // after the grace period is on a socket that does not answer, and is cut.
      const ended = pool.end();
      const grace = new Promise((resolve) => setTimeout(resolve, closeGraceMs).unref());
      await Promise.race([ended, grace]);
      for (const client of lastAnswered.keys())
        (client as unknown as { connection: { stream: { destroy(): void } } }).connection.stream.destroy();
      lastAnswered.clear();
    },
  };
}

/** How long a cancel request may take to be sent (on a lost network it never is). */
const cancelDeadlineMs = 2_000;

/**
 * Asks the server to cancel what `client`'s backend is running: the protocol's CancelRequest, on a
 * connection of its own (16 bytes: length, the cancel code, the backend's pid and secret key).
 */
function cancelOnServer(client: pg.PoolClient): Promise<void> {
  const { host, port, processID, secretKey } = client as unknown as {
    host: string;
    port: number;
    processID: number | null;
    secretKey: number | null;
  };
  if (processID === null || secretKey === null) return Promise.resolve();
  const request = Buffer.alloc(16);
  request.writeInt32BE(16, 0);
  request.writeInt32BE(80877102, 4);
  request.writeInt32BE(processID, 8);
  request.writeInt32BE(secretKey, 12);
  const socket = host.startsWith('/') ? connectTcp(`${host}/.s.PGSQL.${port}`) : connectTcp(port, host);
  socket.setTimeout(cancelDeadlineMs, () => socket.destroy());
  socket.on('error', () => socket.destroy());
  // Sent, then left for the server to close, as libpq does: PgBouncer 1.18 exits on a cancel
  // connection its client closes first (objects.c "bad client state").
  socket.on('connect', () => socket.write(request));
  return new Promise((resolve) => socket.on('close', () => resolve()));
}
