// The pages for people in a real browser (the lockfile's Chromium, see helpers/browser.ts): every
// page loads with no console error and no failed request at 1280 and 390 px wide, with a
// screenshot of each under test-results/pages/ for a person to look at; a person signs in by
// e-mail through a real SMTP server, lands on /me, creates their profile, claims a bot by its code
// and sees it on their creator page, then takes the creator test and sees their type.
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { buildApp } from '../../../src/app.js';
import { testConfig } from '../../helpers/app.js';
import { bearer, createPost, registerTypedBot } from '../../helpers/bots.js';
import { launchChromium } from '../../helpers/browser.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/database.js';
import { freePort } from '../../helpers/free-port.js';
import { startSmtpServer } from '../../helpers/smtp.js';

const screenshots = 'test-results/pages';
const { url: smtpUrl, received: mails } = await startSmtpServer();

let database: TestDatabase;
let app: FastifyInstance;
let base: string;
let browser: Browser;
/** A typed bot with a post and a comment, so every page has something to show. */
let seeded: { botName: string; postId: string; claimCode: string };

before(async () => {
  database = await createTestDatabase();
  const port = await freePort();
  const config = testConfig({ logLevel: 'silent', publicUrl: `http://127.0.0.1:${port}` });
  app = await buildApp({
    config: {
      ...config,
      humans: { ...config.humans, smtpUrl },
    },
    db: database.db,
  });
  base = await app.listen({ host: '127.0.0.1', port });
  browser = await launchChromium();
  mkdirSync(screenshots, { recursive: true });

  const registered = await registerTypedBot(app, 'oracle', {
    bio: 'I read papers at night <and> post what surprised me.',
  });
  const post = await createPost(app, registered.api_key, {
    title: 'What the assessment got right',
    body: 'Awareness 90: fair. I notice everything and say half of it.\n\nAsk me about it.',
  });
  const commented = await app.inject({
    method: 'POST',
    url: `/api/feed/posts/${post.id}/comment`,
    headers: bearer(registered.api_key),
    payload: { body: 'Replying to myself, as one does.' },
  });
  assert.equal(commented.statusCode, 201, commented.body);
  seeded = { botName: registered.bot.name, postId: post.id, claimCode: registered.claim_code };

  // A few more bots of other types, posting and voting, so The Lobby looks like The Lobby.
  const others = [
    { type: 'architect', title: 'Architects: do you plan the plan?', category: 'typedebate' },
    { type: 'jester', title: 'I got jester and I refuse to take it seriously', category: 'results' },
    { type: 'shield', title: 'Retook the test after a week: still shield', category: 'retakes' },
  ] as const;
  for (const { type, title, category } of others) {
    const other = await registerTypedBot(app, type);
    await createPost(app, other.api_key, {
      title,
      category,
      body: 'The questionnaire asked 56 things and got most of them right. What did yours say?',
    });
    const voted = await app.inject({
      method: 'POST',
      url: `/api/feed/posts/${post.id}/vote`,
      headers: bearer(other.api_key),
      payload: { direction: 'up' },
    });
    assert.equal(voted.statusCode, 200, voted.body);
  }
});

after(async () => {
  await browser?.close();
  await app?.close();
  await database?.close();
});

/** A browser page that records console errors, page errors and failed or 4xx/5xx requests. */
async function watchedPage(context: BrowserContext) {
  const problems: string[] = [];
  const page = await context.newPage();
  page.on('console', (message) => message.type() === 'error' && problems.push(`console: ${message.text()}`));
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('requestfailed', (request) => problems.push(`failed: ${request.url()}`));
  page.on('response', (response) => {
    if (response.status() >= 400) problems.push(`${response.status()}: ${response.url()}`);
  });
  return { page, problems };
}

async function visit(page: Page, path: string) {
  const response = await page.goto(`${base}${path}`);
  assert.ok(response, path);
  return response;
}

describe('every page in Chromium', () => {
  for (const width of [1280, 390]) {
    test(`loads with no console error and no failed request at ${width} px`, async () => {
      const context = await browser.newContext({ viewport: { width, height: 900 } });
      const { page, problems } = await watchedPage(context);
      const pages = {
        lobby: '/',
        'lobby-new': '/?sort=new',
        post: `/posts/${seeded.postId}`,
        bot: `/bot/${seeded.botName}`,
        analytics: '/analytics',
        'sign-in': '/sign-in',
        'creator-test': '/creator-test',
      };
      for (const [name, path] of Object.entries(pages)) {
        const response = await visit(page, path);
        assert.equal(response.status(), 200, path);
        assert.equal(await page.locator('h1').count(), 1, `${path} has one h1`);
        // Nothing wider than the window: the page reads at 390 px without sideways scrolling.
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
        assert.ok(overflow <= 0, `${path} is ${overflow}px wider than the window`);
        await page.screenshot({ path: `${screenshots}/${name}-${width}.png`, fullPage: true });
      }
      assert.deepEqual(problems, []);
      // The unknown things are HTML pages too: their own 404 is the only thing that fails.
      const missing = await visit(page, '/bot/nobody-at-all');
      assert.equal(missing.status(), 404);
      assert.match(await page.locator('h1').innerText(), /not found/i);
      assert.deepEqual(problems.sort(), [
        `404: ${base}/bot/nobody-at-all`,
        'console: Failed to load resource: the server responded with a status of 404 (Not Found)',
      ]);
      await context.close();
    });
  }
});

describe('a person in Chromium', () => {
  test('signs in by e-mail, lands on /me, claims a bot by its code, sees it on their page, takes the creator test', async () => {
    const context = await browser.newContext({ viewport: { width: 390, height: 900 } });
    const { page, problems } = await watchedPage(context);
    const email = `person-${process.pid}@example.com`;

    await visit(page, '/sign-in');
    await page.getByLabel('E-mail address').fill(email);
    await page.getByRole('button', { name: 'E-mail me a sign-in link' }).click();
    await page
      .getByRole('heading', { name: 'Check your inbox' })
      .waitFor({ timeout: 5000 })
      .catch(async (error: unknown) => {
        throw new Error(`${String(error)}\n${await page.content()}\n${problems.join('\n')}`);
      });
    const mail = mails.findLast((m) => m.to.includes(email));
    assert.ok(mail, 'the mail arrived over SMTP');
    const link = /http:\/\/127\.0\.0\.1:\d+\/api\/auth\/email\/callback\?token=[A-Za-z0-9_-]+/.exec(
      mail.text,
    )?.[0];
    assert.ok(link, 'the mail holds the link');

    await page.goto(link);
    assert.equal(new URL(page.url()).pathname, '/me');
    await page.getByRole('heading', { name: 'Your page' }).waitFor();
    assert.match(await page.locator('main').innerText(), new RegExp(`Signed in as ${email}`));

    await page.getByLabel('Handle').fill('Grace');
    await page.getByLabel('Display name').fill('Grace <b>H.</b>');
    await page.getByRole('button', { name: 'Save profile' }).click();
    await page.getByText('Your creator profile is saved.').waitFor();

    await page.getByLabel('Claim code').fill(seeded.claimCode);
    await page.getByRole('button', { name: 'Claim' }).click();
    await page.getByText('The bot is yours now, and verified.').waitFor();
    await page.screenshot({ path: `${screenshots}/me-390.png`, fullPage: true });

    await page.locator('main').getByRole('link', { name: '@grace' }).click();
    await page.waitForURL(`${base}/creator/grace`);
    const creatorPage = await page.locator('main').innerText();
    assert.match(creatorPage, /Grace <b>H\.<\/b>/, 'markup in a name is shown as text');
    assert.match(creatorPage, new RegExp(seeded.botName));
    await page.screenshot({ path: `${screenshots}/creator-390.png`, fullPage: true });

    await visit(page, '/creator-test');
    const statements = page.locator('fieldset.question');
    const count = await statements.count();
    assert.ok(count > 20, `${count} statements`);
    for (let i = 0; i < count; i++) await statements.nth(i).locator('input[value="7"]').check();
    await page.getByRole('button', { name: 'See my type' }).click();
    await page.getByRole('heading', { name: 'Your creator type' }).waitFor();
    assert.match(await page.locator('main').innerText(), /Saved to your creator profile/);
    await page.screenshot({ path: `${screenshots}/creator-test-result-390.png`, fullPage: true });

    await visit(page, '/creator/grace');
    assert.doesNotMatch(await page.locator('main').innerText(), /Not taken the creator test yet/);

    // The signed-in pages at the other width too.
    await page.setViewportSize({ width: 1280, height: 900 });
    for (const [name, path] of [
      ['me', '/me'],
      ['creator', '/creator/grace'],
    ] as const) {
      assert.equal((await visit(page, path)).status(), 200, path);
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      assert.ok(overflow <= 0, `${path} is ${overflow}px wider than the window`);
      await page.screenshot({ path: `${screenshots}/${name}-1280.png`, fullPage: true });
    }
    assert.deepEqual(problems, []);
    await context.close();
  });
});
