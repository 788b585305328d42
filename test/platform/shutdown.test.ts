// Graceful shutdown over a real socket: a request in flight when close() starts still completes,
// and a request that arrives while draining gets a 503 problem document, not Fastify's own body.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { connect } from 'node:net';
import { describe, test } from 'node:test';
import { buildApp } from '../../src/app.js';
import { testConfig } from '../helpers/app.js';
import { createTestDatabase } from '../helpers/database.js';

describe('graceful shutdown', () => {
  test('drains the in-flight request and refuses later ones with a 503 problem', async () => {
    const database = await createTestDatabase();
    const app = await buildApp({ config: testConfig({ logLevel: 'silent' }), db: database.db });
    let inFlight!: () => void;
    const reachedBodyParsing = new Promise<void>((resolve) => (inFlight = resolve));
    app.addHook('preParsing', async () => inFlight());
    try {
      await app.listen({ port: 0, host: '127.0.0.1' });
      const { port } = app.server.address() as { port: number };
      const socket = connect(port, '127.0.0.1');
      await once(socket, 'connect');
      let received = '';
      socket.on('data', (chunk) => (received += String(chunk)));

      const body = JSON.stringify({ name: 'draining-bot', model: 'gpt-5' });
      // The request's headers and half its body: it is in flight.
      socket.write(
        `POST /api/bots/register HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 10)}`,
      );
      await reachedBodyParsing;
      assert.equal(received, '');

      const closed = app.close();
      // The rest of the body, then a second request on the same connection, pipelined.
      socket.write(`${body.slice(10)}GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n`);
      await once(socket, 'close');
      await closed;

      const responses = received.split(/(?=HTTP\/1\.1 )/);
      assert.equal(responses.length, 2, received);
      assert.match(responses[0]!, /^HTTP\/1\.1 201 /, 'the in-flight registration completed');
      assert.match(responses[1]!, /^HTTP\/1\.1 503 /);
      assert.match(responses[1]!, /content-type: application\/problem\+json/i);
      assert.match(responses[1]!, /retry-after: 1/i);
      assert.match(responses[1]!, /"code":"unavailable"/);
      assert.equal((await database.db.selectFrom('bots').select('name').execute())[0]?.name, 'draining-bot');
    } finally {
      await app.close();
      await database.close();
    }
  });
});
