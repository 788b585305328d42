// A TCP proxy on 127.0.0.1 in front of a database (or a pooler), for network faults as they happen:
// `blackHole()` silently drops everything on the connections open now (no reset, no FIN: the
// sockets just stop answering) and leaves new connections hanging; `heal()` lets new connections
// through again, while the black-holed ones stay dead, as after a network partition.
import { createServer, connect, type Socket } from 'node:net';

export interface TcpProxy {
  /** The target's URL with the proxy's port. */
  url: string;
  /** How many connections it has accepted so far. */
  readonly accepted: number;
  blackHole(): void;
  heal(): void;
  close(): Promise<void>;
}

export async function startTcpProxy(targetUrl: string): Promise<TcpProxy> {
  const target = new URL(targetUrl);
  const targetPort = Number(target.port || 5432);
  let holing = false;
  const dead = new Set<Socket>();
  const live = new Set<[Socket, Socket]>();
  let accepted = 0;
  const server = createServer((client) => {
    accepted++;
    client.on('error', () => {});
    if (holing) {
      // Accepted, never answered: a connection attempt that hangs.
      client.pause();
      dead.add(client);
      return;
    }
    const upstream = connect(targetPort, target.hostname);
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
    client.pipe(upstream);
    upstream.pipe(client);
    const pair: [Socket, Socket] = [client, upstream];
    live.add(pair);
    const forget = () => live.delete(pair);
    client.on('close', forget);
    upstream.on('close', forget);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  const url = new URL(targetUrl);
  url.hostname = '127.0.0.1';
  url.port = String(port);
  return {
    url: url.toString(),
    get accepted() {
      return accepted;
    },
    blackHole() {
      holing = true;
      for (const pair of live) {
        for (const socket of pair) {
          socket.unpipe();
          socket.removeAllListeners('data');
          socket.pause();
          dead.add(socket);
        }
      }
      live.clear();
    },
    heal() {
      holing = false;
    },
    async close() {
      for (const socket of dead) socket.destroy();
      for (const pair of live) for (const socket of pair) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
