// The framework ceiling: a bare Fastify 5 server answering {"hello":"world"}, started by
// bench/run.ts in its own process, as ours is, on the PORT it is given. Plain JavaScript, so that
// no TypeScript loader weighs on the ceiling, as none weighs on our compiled server.
import Fastify from 'fastify';

const app = Fastify({ logger: false });
app.get('/', async () => ({ hello: 'world' }));
await app.listen({ host: process.env.HOST ?? '127.0.0.1', port: Number(process.env.PORT ?? 0) });
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
