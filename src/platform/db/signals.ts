// Signals between instances: what the database's triggers NOTIFY after a commit (the event-streams
// migration), heard by LISTEN. On a Postgres server the listener is one connection of its own to
// DATABASE_DIRECT_URL, never a transaction pooler's (which would hand its session to other clients
// between transactions); PGlite hears its own NOTIFYs in process. A listener that loses its
// connection reconnects and says so (`onResync`): signals sent meanwhile are lost, so whoever
// listens reads the database again rather than trust that nothing happened.
import { randomUUID } from 'node:crypto';
import type { PGlite } from '@electric-sql/pglite';
import pg from 'pg';

export interface SignalHandlers {
  /** A payload NOTIFY sent on the channel, after its transaction committed. */
  onSignal(payload: string): void;
  /** The listener was away (its connection lost, then back): signals may have been missed. */
  onResync(): void;
  /** The listening connection failed (it reconnects by itself). */
  onError(error: unknown): void;
}

export interface DatabaseSignals {
  /** Listens on `channel` until the returned function is called; resolves once listening. */
  listen(channel: string, handlers: SignalHandlers): Promise<() => Promise<void>>;
}

/** Time between checks that the listening connection still answers (a lost network sends no error). */
const checkEveryMs = 10_000;
/** How long a check may take before the connection is taken for lost. */
const checkTimeoutMs = 5_000;
const retryDelaysMs = [100, 250, 500, 1_000, 2_000];

export function postgresSignals(url: string): DatabaseSignals {
  return {
    async listen(channel, handlers) {
      const onError = (error: unknown) => handlers.onError(error);
      let client: pg.Client | undefined;
      let stopped = false;
      let failures = 0;
      /** The check's own signal, awaited back on the listening connection. */
      let ping: { payload: string; heard: () => void } | undefined;

      const connect = async (): Promise<void> => {
        const next = new pg.Client({
          connectionString: url,
          keepAlive: true,
          connectionTimeoutMillis: 5_000,
        });
        next.on('notification', (message) => {
          if (message.channel !== channel) return;
          if (ping && message.payload === ping.payload) return ping.heard();
          handlers.onSignal(message.payload ?? '');
        });
        next.on('error', (error) => lost(next, error));
        next.on('end', () => lost(next, undefined));
        try {
          await next.connect();
          await next.query(`listen ${pg.escapeIdentifier(channel)}`);
        } catch (error) {
          await next.end().catch(() => {});
          throw error;
        }
        if (stopped) {
          await next.end().catch(() => {});
          return;
        }
        client = next;
        failures = 0;
      };
      const lost = (which: pg.Client, error: unknown) => {
        if (stopped || which !== client) return;
        client = undefined;
        if (error) onError(error);
        which.end().catch(() => {});
        void reconnect();
      };
      const reconnect = async () => {
        while (!stopped && !client) {
          await new Promise((resolve) => setTimeout(resolve, retryDelaysMs[Math.min(failures, 4)]));
          if (stopped) return;
          try {
            await connect();
            if (client) handlers.onResync();
          } catch (error) {
            failures++;
            onError(error);
          }
        }
      };

      await connect();
      // The check is a signal of its own, sent and heard back: a connection the network lost fails
      // it, and so does one through a transaction pooler, where LISTEN hears nothing.
      const check = setInterval(() => {
        const current = client;
        if (!current || ping) return;
        const payload = `ping ${randomUUID()}`;
        const timeout = setTimeout(() => {
          ping = undefined;
          lost(
            current,
            new Error(
              'the LISTEN connection did not hear its own signal back (lost, or not a direct connection: ' +
                'DATABASE_DIRECT_URL must name the primary itself, not a transaction pooler)',
            ),
          );
        }, checkTimeoutMs);
        ping = {
          payload,
          heard: () => {
            clearTimeout(timeout);
            ping = undefined;
          },
        };
        current.query('select pg_notify($1, $2)', [channel, payload]).catch((error: unknown) => {
          clearTimeout(timeout);
          ping = undefined;
          lost(current, error);
        });
      }, checkEveryMs).unref();

      return async () => {
        stopped = true;
        clearInterval(check);
        const last = client;
        client = undefined;
        await last?.end().catch(() => {});
      };
    },
  };
}

export function pgliteSignals(pglite: PGlite): DatabaseSignals {
  return {
    async listen(channel, handlers) {
      const unlisten = await pglite.listen(channel, (payload) => handlers.onSignal(payload));
      return async () => {
        if (!pglite.closed) await unlisten();
      };
    },
  };
}
