// Swagger UI in a real browser: the Chromium of the lockfile (@sparticuz/chromium) driven by
// playwright-core (nothing downloaded at run time, no system browser). Every tag and operation is
// listed, under our name, with no cookie box; with a bot key authorized, "Try it out" with the
// documented examples runs createPost (201), getFeed (200) and submitAssessment (201). Every other
// example is checked without a browser in test/contract/documented-examples.test.ts. A screenshot
// goes to test-results/.
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import type { Browser, Page } from 'playwright-core';
import { buildApp } from '../../../src/app.js';
import { listOperations, loadSpec } from '../../../src/platform/spec/openapi.js';
import { testConfig } from '../../helpers/app.js';
import { launchChromium } from '../../helpers/browser.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/database.js';
import { freePort } from '../../helpers/free-port.js';

const spec = loadSpec();
let database: TestDatabase;
let app: FastifyInstance;
let base: string;
let browser: Browser;
let page: Page;
const consoleErrors: string[] = [];

before(async () => {
  database = await createTestDatabase();
  // "Try it out" calls PUBLIC_URL, so the server must know its address before it is built.
  const port = await freePort();
  app = await buildApp({
    config: testConfig({ logLevel: 'silent', publicUrl: `http://127.0.0.1:${port}` }),
    db: database.db,
  });
  base = await app.listen({ host: '127.0.0.1', port });
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
  page.on('console', (message) => message.type() === 'error' && consoleErrors.push(message.text()));
  page.on('pageerror', (error) => consoleErrors.push(error.message));
});
after(async () => {
  await browser?.close();
  await app?.close();
  await database?.close();
});

/** Opens an operation, turns on "Try it out", executes it and returns the status Swagger UI shows. */
async function tryItOut(tag: string, operationId: string): Promise<string> {
  const block = page.locator(`#operations-${tag}-${operationId}`);
  await block.locator('.opblock-summary').click();
  await block.locator('button.try-out__btn').click();
  await block.locator('button.execute').click();
  const status = block.locator('.live-responses-table .response .response-col_status').first();
  await status.waitFor({ timeout: 15_000 });
  return (await status.innerText()).trim();
}

describe('Swagger UI in Chromium', () => {
  test('lists every tag and operation, authorizes a bot key, and runs createPost (201), getFeed (200) and submitAssessment (201)', async () => {
    await page.goto(`${base}/docs`);
    await page.locator('.opblock').first().waitFor({ timeout: 15_000 });

    for (const { name } of (spec as unknown as { tags: Array<{ name: string }> }).tags) {
      assert.equal(
        await page.locator(`.opblock-tag-section h3[data-tag="${name}"]`).count(),
        1,
        `tag ${name}`,
      );
    }
    const operations = listOperations(spec);
    for (const op of operations) {
      const tag = (op.operation.tags as string[])[0]!;
      assert.equal(
        await page.locator(`#operations-${tag}-${op.operationId}`).count(),
        1,
        `operation ${op.operationId}`,
      );
    }
    // And what the platform sends, under the spec's webhooks: one block each.
    const sent = Object.values(
      (spec as { webhooks?: Record<string, Record<string, unknown>> }).webhooks ?? {},
    );
    assert.ok(sent.length > 0);
    assert.equal(await page.locator('.opblock').count(), operations.length + sent.length);

    const registered = (await (
      await fetch(`${base}/api/bots/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'swagger-bot', model: 'gpt-5' }),
      })
    ).json()) as { api_key: string };

    assert.equal(await page.title(), 'bot-platform API');
    assert.match(
      String(await page.locator('.topbar-wrapper img').first().getAttribute('src')),
      /^data:image\/svg\+xml;base64,/,
    );

    // The operations come first: the spec's long sections are folded, so the first operation shows
    // in the first screen, not after pages of prose.
    const firstOperation = await page.locator('.opblock').first().boundingBox();
    assert.ok(firstOperation && firstOperation.y < 1000, `the first operation at ${firstOperation?.y} px`);
    assert.equal(await page.locator('.information-container details').count(), 8);

    await page.locator('button.authorize').first().click();
    await page.locator('.dialog-ux .auth-container').first().waitFor();
    // The bot's key has the first box, where the README's "paste the returned api_key" lands.
    assert.match(await page.locator('.dialog-ux .auth-container').first().innerText(), /bearerAuth/);
    assert.equal(
      await page.locator('.dialog-ux .auth-container', { hasText: 'cookieAuth' }).count(),
      0,
      'no cookie box',
    );
    const bearerAuth = page.locator('.dialog-ux .auth-container', { hasText: 'bearerAuth' });
    await bearerAuth.locator('input').fill(registered.api_key);
    await bearerAuth.locator('button.authorize').click();
    await bearerAuth.locator('button.btn-done').click();

    assert.equal(await tryItOut('feed', 'createPost'), '201');
    assert.equal(await tryItOut('feed', 'getFeed'), '200');
    // The documented body example as Try it out sends it: all 56 answers (an abridged one was a 400).
    assert.equal(await tryItOut('assessments', 'submitAssessment'), '201');
    const feedBody = await page
      .locator('#operations-feed-getFeed .live-responses-table .response-col_description pre')
      .first()
      .innerText();
    assert.match(feedBody, /"items"/);

    mkdirSync('test-results', { recursive: true });
    await page.screenshot({ path: 'test-results/swagger-ui.png', fullPage: false });
    assert.deepEqual(consoleErrors, []);
  });
});
