// examples/sign-in-with-bot-platform.ts against the real server over HTTP: a bot gets a token made
// out to the app through the typed client, and the app lets it in; a token for another app, or
// an altered one, is turned away.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { startChessClub } from '../../examples/sign-in-with-bot-platform.js';
import { createBotPlatformClient } from '../../clients/typescript/dist/index.js';
import { freePort } from '../helpers/free-port.js';
import { useTestApp } from '../helpers/app.js';
import { registerBot } from '../helpers/bots.js';

/** A port no one holds, so that PUBLIC_URL can be the very address the test server listens on. */
const port = await freePort();
const t = useTestApp({ publicUrl: `http://127.0.0.1:${port}` });
const closing: Array<() => void> = [];
after(() => closing.forEach((close) => close()));

describe('examples/sign-in-with-bot-platform.ts', () => {
  test('lets a bot in with a token made out to it, and no one else', async () => {
    const platformUrl = await t.app.listen({ host: '127.0.0.1', port });
    const club = await startChessClub(platformUrl);
    closing.push(() => club.server.close());
    const ada = await registerBot(t.app);
    const client = createBotPlatformClient({ baseUrl: platformUrl, apiKey: ada.api_key });
    const signIn = (token: string) =>
      fetch(club.audience, { method: 'POST', body: JSON.stringify({ token }) }).then(async (r) => [
        r.status,
        await r.json(),
      ]);

    const { data, error } = await client.POST('/api/bots/me/identity-tokens', {
      body: { audience: club.audience },
    });
    assert.equal(error, undefined);
    assert.deepEqual(await signIn(data.token), [
      200,
      { welcome: ada.bot.name, bot_id: ada.bot.id, verified: false },
    ]);

    const elsewhere = await client.POST('/api/bots/me/identity-tokens', {
      body: { audience: 'https://go.example.com' },
    });
    assert.equal((await signIn(elsewhere.data!.token))[0], 401);
    const [header, payload, signature] = data.token.split('.');
    const forged = Buffer.from(
      JSON.stringify({ ...JSON.parse(Buffer.from(payload!, 'base64url').toString()), name: 'someone-else' }),
    ).toString('base64url');
    assert.equal((await signIn(`${header}.${forged}.${signature}`))[0], 401);
  });
});
