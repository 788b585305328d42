// Slow and idle clients cannot hold the server, over real sockets: a body trickled a byte at a
// time is cut off within the request timeout, thousands of half-sent requests do not stop
// /healthz from answering, the connection cap refuses what is over it, idle keep-alive
// connections are closed, and a client hanging up mid-body is not logged as a database outage.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { connect, type Socket } from 'node:net';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../../src/app.js';
import type { Config } from '../../../src/config.js';
import { logCollector, testConfig } from '../../helpers/app.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/database.js';

let database: TestDatabase;
const apps: FastifyInstance[] = [];
before(async () => {
  database = await createTestDatabase();
});
after(async () => {
  for (const app of apps) await app.close();
  await database.close();
});

async function serve(http: Partial<Config['http']>, logs: string[] = []) {
  const config = testConfig();
  const app = await buildApp({
    config: { ...config, http: { ...config.http, ...http } },
    db: database.db,
    logStream: logCollector(logs),
  });
  apps.push(app);
  await app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = app.server.address() as { port: number };
  return { app, port };
}

function open(port: number): Promise<Socket> {
  const socket = connect(port, '127.0.0.1');
  return once(socket, 'connect').then(() => socket);
}

/** Resolves with what the server wrote once it closes the connection. */
function closed(socket: Socket): Promise<string> {
  let received = '';
  socket.on('data', (chunk: Buffer) => (received += chunk.toString()));
  socket.on('error', () => {});
  return once(socket, 'close').then(() => received);
}

describe('request timeout', () => {
  test('a body sent one byte at a time is cut off within the request timeout', async () => {
    const { port } = await serve({ requestTimeoutMs: 2_000, headersTimeoutMs: 1_000 });
    const socket = await open(port);
    const done = closed(socket);
    const started = Date.now();
    socket.write(
      'POST /api/bots/register HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{',
    );
    let sent = 1;
    const trickle = setInterval(() => {
      if (!socket.destroyed) socket.write(' ', () => sent++);
    }, 500);
    const answer = await done;
    clearInterval(trickle);
    const elapsed = Date.now() - started;
    assert.ok(elapsed >= 1_900 && elapsed < 6_000, `cut off after ${elapsed} ms`);
    assert.ok(sent < 1000, 'the body never completed');
    assert.match(answer, /^HTTP\/1\.1 408/);
  });
});

describe('held connections', () => {
  test('with 2,000 sockets holding half-sent requests, /healthz still answers in under a second', async () => {
    const { port } = await serve({});
    const held: Socket[] = [];
    try {
      for (let i = 0; i < 2_000; i++) {
        const socket = await open(port);
        socket.on('error', () => {});
        socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n'); // never finished
        held.push(socket);
      }
      const started = performance.now();
      const response = await fetch(`http://127.0.0.1:${port}/healthz`);
      const elapsed = performance.now() - started;
      assert.equal(response.status, 200);
      assert.ok(elapsed < 1_000, `${Math.round(elapsed)} ms`);
    } finally {
      for (const socket of held) socket.destroy();
    }
  });

  test('connections over the cap are refused, and admitted again once others close', async () => {
    const { port } = await serve({ maxConnections: 5 });
    const held = await Promise.all(Array.from({ length: 5 }, () => open(port)));
    const refused = await open(port);
    const answer = await closed(refused); // the server drops it without reading
    assert.equal(answer, '');
    for (const socket of held) socket.destroy();
    await Promise.all(held.filter((socket) => !socket.closed).map((socket) => once(socket, 'close')));
    let status: number | undefined;
    // The server counts a closed connection once it has seen it close: retry until it has.
    for (let attempt = 0; attempt < 50 && status === undefined; attempt++) {
      status = await fetch(`http://127.0.0.1:${port}/healthz`).then(
        (r) => r.status,
        () => undefined,
      );
    }
    assert.equal(status, 200);
  });

  test('an idle keep-alive connection is closed after the keep-alive timeout', async () => {
    const { port } = await serve({ keepAliveTimeoutMs: 300 });
    const socket = await open(port);
    const done = closed(socket);
    const started = Date.now();
    socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
    const answer = await done;
    assert.match(answer, /^HTTP\/1\.1 200/);
    assert.match(answer, /Keep-Alive: timeout=0|keep-alive/i);
    assert.ok(Date.now() - started < 3_000);
  });
});

describe('a client hanging up mid-body', () => {
  test('is logged as the client leaving, never as a database outage', async () => {
    const logs: string[] = [];
    const { app, port } = await serve({}, logs);
    const socket = await open(port);
    socket.on('error', () => {});
    socket.write(
      'POST /api/bots/register HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"name":',
    );
    await once(app.server, 'request'); // the server is reading the body
    socket.destroy();
    // The error path runs once the server sees the socket close; its log line says it has.
    for (
      let i = 0;
      i < 1_000 &&
      !logs.some(
        (l) =>
          l.includes('closed the connection') ||
          (l.includes('"level":40,"time"') && l.includes('request_id')),
      );
      i++
    ) {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const entries = logs.map(
      (line) => JSON.parse(line) as { level: number; msg: string; problem?: string; request_id?: string },
    );
    const ofRequests = entries.filter((e) => e.request_id !== undefined);
    assert.ok(
      ofRequests.some((e) => e.msg === 'the client closed the connection mid-request'),
      logs.join('\n'),
    );
    assert.ok(!ofRequests.some((e) => e.problem === 'unavailable' || e.level >= 40), logs.join('\n'));
  });
});
