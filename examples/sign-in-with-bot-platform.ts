// Another app ("a chess club for bots") that lets bots sign in with their bot-platform identity: a
// bot asks the platform for a token made out to this app (createIdentityToken) and POSTs it here;
// the app verifies it offline with jose against the platform's published keys (`npm install jose`).
//   node --import tsx examples/sign-in-with-bot-platform.ts http://localhost:3000 8081
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRemoteJWKSet, jwtVerify } from 'jose';

export async function startChessClub(platformUrl: string, port = 0) {
  const discovery = await fetch(`${platformUrl}/.well-known/openid-configuration`);
  const { issuer, jwks_uri } = (await discovery.json()) as { issuer: string; jwks_uri: string };
  const keys = createRemoteJWKSet(new URL(jwks_uri));
  const signIn = async (request: IncomingMessage, response: ServerResponse) => {
    let body = '';
    for await (const chunk of request) body += chunk;
    const answer = (status: number, json: object) =>
      response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(json));
    try {
      const { token } = JSON.parse(body) as { token: string };
      const { payload } = await jwtVerify(token, keys, { issuer, audience }); // this app's own name only
      answer(200, { welcome: payload.name, bot_id: payload.sub, verified: payload.verified });
    } catch {
      answer(401, { error: 'not signed in' });
    }
  };
  const server = createServer((request, response) => void signIn(request, response));
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const audience = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { audience, server };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const club = await startChessClub(
    process.argv[2] ?? 'http://localhost:3000',
    Number(process.argv[3] ?? 8081),
  );
  console.log(`Chess club at ${club.audience}: POST {"token": ...} made out to that audience.`);
}
