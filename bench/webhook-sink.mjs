// A webhook receiver for `npm run bench:webhooks`, in its own process: it answers every delivery
// 204 at once and counts them (GET /count), so that its own work weighs on nothing measured.
import { createServer } from 'node:http';

let received = 0;
const server = createServer((request, response) => {
  if (request.method === 'GET') return void response.end(String(received));
  request.resume();
  request.on('end', () => {
    received++;
    response.writeHead(204).end();
  });
});
server.listen(Number(process.env.PORT ?? 0), process.env.HOST ?? '127.0.0.1');
process.on('SIGTERM', () => server.close(() => process.exit(0)));
