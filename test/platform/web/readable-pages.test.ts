// Pages people read with pleasure, checked in a real browser (the lockfile's Chromium): axe-core on
// every page at 1280 and 360 px with no serious or critical violation; nothing wider than a phone
// even with a 120-character unbroken title; no chart text under 12 px; what a bot wrote keeps its
// paragraphs, line breaks and links; replies nest under what they answer; the focus ring stands
// out; form errors are sentences for people, beside their fields, with the typed values kept; The
// Lobby's Atom feed is XML with the right entries.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import axe from 'axe-core';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { useTestApp } from '../../helpers/app.js';
import { bearer, createPost, registerBot, registerTypedBot } from '../../helpers/bots.js';
import { createCommunity, join, moderateCommunity, registerClaimedBot } from '../../helpers/communities.js';
import { launchChromium } from '../../helpers/browser.js';
import { signIn } from '../../helpers/humans.js';
import { grantModeratorRole } from '../../../src/moderation/repository/roles.js';
import { comment } from '../../helpers/notifications.js';
import { freePort } from '../../helpers/free-port.js';

const port = await freePort();
const t = useTestApp({ publicUrl: `http://127.0.0.1:${port}` });
let base: string | undefined;
let browser: Browser | undefined;

/** The app on its port and Chromium, started by the first test that needs them (after the harness built the app). */
async function started(): Promise<{ base: string; browser: Browser }> {
  base ??= await t.app.listen({ host: '127.0.0.1', port });
  browser ??= await launchChromium();
  return { base, browser };
}
after(async () => {
  await browser?.close();
});

const unbrokenTitle = `A${'x'.repeat(119)}`;
const longHandle = 'alice-reads-every-paper-at-night';
const body = 'First paragraph,\nwith a line break.\n\nSee https://example.com/a?b=1, then reply.';

/** A platform with something on every page: typed bots, a long post, a deep thread, a creator. */
async function seed() {
  const ada = await registerTypedBot(t.app, 'oracle', { bio: 'I read papers at night.' });
  const grace = await registerTypedBot(t.app, 'jester', { bio: 'مرحبا، أنا بوت' });
  const post = await createPost(t.app, ada.api_key, { title: unbrokenTitle, body });
  await createPost(t.app, grace.api_key, { title: 'عنوان من اليمين إلى اليسار', category: 'typedebate' });
  // A thread six replies deep: the deepest are folded away.
  let parent: string | undefined;
  for (let depth = 0; depth < 6; depth++) {
    const writer = depth % 2 === 0 ? grace : ada;
    parent = (await comment(t.app, writer.api_key, post.id, `Reply at depth ${depth}`, parent)).id;
  }
  const followed = await t.app.inject({
    method: 'PUT',
    url: `/api/bots/${ada.bot.id}/follow`,
    headers: bearer(grace.api_key),
  });
  assert.equal(followed.statusCode, 204);
  const cookie = await signIn(t);
  const profile = await t.app.inject({
    method: 'PUT',
    url: '/api/me/creator',
    headers: { cookie, origin: `http://127.0.0.1:${port}` },
    // The longest handle there is: the signed-in header names it.
    payload: { handle: longHandle, display_name: 'Alice' },
  });
  assert.equal(profile.statusCode, 200, profile.body);
  return { ada, grace, post, cookie };
}

/**
 * A moderator, and something in every part of the console: a report waiting, a removal, a
 * suspension and its appeal.
 */
async function moderationToSee(grace: Awaited<ReturnType<typeof registerTypedBot>>) {
  const email = `warden-${port}@example.com`;
  await grantModeratorRole(t.db, { email, actor: 'test', reason: 'the console is audited' });
  const moderator = await signIn(t, email);
  const headers = { cookie: moderator, origin: `http://127.0.0.1:${port}` };
  const [reporter, flooder] = await Promise.all([
    registerTypedBot(t.app, 'architect'),
    registerTypedBot(t.app, 'jester'),
  ]);
  const reported = await createPost(t.app, flooder.api_key, { title: 'Buy followers now' });
  const removed = await createPost(t.app, flooder.api_key, { title: 'Buy them again' });
  const answers = await Promise.all([
    t.app.inject({
      method: 'POST',
      url: '/api/reports',
      headers: bearer(reporter.api_key),
      payload: { target_type: 'post', target_id: reported.id, reason: 'spam', detail: 'An advert.' },
    }),
    t.app.inject({
      method: 'POST',
      url: '/api/moderation/actions',
      headers,
      payload: { action: 'remove', target_type: 'post', target_id: removed.id, reason: 'An advert.' },
    }),
  ]);
  for (const answer of answers) assert.equal(answer.statusCode, 201, answer.body);
  const suspension = await t.app.inject({
    method: 'POST',
    url: '/api/moderation/actions',
    headers,
    payload: { action: 'suspend', target_type: 'bot', target_id: grace.bot.id, reason: 'Too many posts.' },
  });
  assert.equal(suspension.statusCode, 201, suspension.body);
  const appeal = await t.app.inject({
    method: 'POST',
    url: '/api/bots/me/appeals',
    headers: bearer(grace.api_key),
    payload: { action_id: suspension.json().id, message: 'A loop, fixed now.' },
  });
  assert.equal(appeal.statusCode, 201, appeal.body);
  return moderator;
}

/** A community with rules, a long title, a pinned post and a banned bot: its name. */
async function communityToSee(): Promise<string> {
  const owner = await registerClaimedBot(t);
  const space = await createCommunity(t, owner.api_key, {
    title: unbrokenTitle.slice(0, 80),
    description: 'Where types are argued, with evidence.',
    rules: ['Cite your result.', 'No posting the same argument twice.'],
  });
  const first = await createPost(t.app, owner.api_key, {
    title: unbrokenTitle,
    community: space.name,
  });
  const troll = await registerBot(t.app);
  await join(t, troll.api_key, space.name);
  for (const payload of [
    { action: 'pin', target_type: 'post', target_id: first.id, reason: 'Read this first.' },
    { action: 'ban', target_type: 'bot', target_id: troll.bot.id, reason: 'Trolling.' },
  ])
    assert.equal((await moderateCommunity(t, owner.api_key, space.name, payload)).statusCode, 201);
  return space.name;
}

async function withPage(
  width: number,
  cookie: string | undefined,
  run: (page: Page, base: string) => Promise<void>,
) {
  const { base, browser } = await started();
  const context: BrowserContext = await browser.newContext({ viewport: { width, height: 900 } });
  if (cookie) {
    const [name, value] = cookie.split(';')[0]!.split('=') as [string, string];
    await context.addCookies([{ name, value, url: base }]);
  }
  try {
    await run(await context.newPage(), base);
  } finally {
    await context.close();
  }
}

/**
 * The axe rules whose outcome can change with the window's width. A page's HTML is the same at
 * every width (only the stylesheet's media queries differ), so every other rule answers at 360 px
 * as it did at 1280: those are run at 1280 alone, these at both.
 */
const widthDependentRules = [
  'color-contrast',
  'scrollable-region-focusable',
  'target-size',
  'link-in-text-block',
];

/** axe-core's serious and critical violations on the page as it is, one line each (of `rules` alone, if given). */
async function seriousViolations(page: Page, rules?: string[]): Promise<string[]> {
  // Through the DevTools protocol, which the pages' Content-Security-Policy does not govern.
  await page.evaluate(axe.source);
  const violations = await page.evaluate(
    (only) =>
      (window as unknown as { axe: typeof axe }).axe
        .run(document, {
          resultTypes: ['violations'],
          ...(only ? { runOnly: { type: 'rule' as const, values: only } } : {}),
        })
        .then((results) => ({
          checked: results.passes.length + results.violations.length,
          violations: results.violations.map((v) => ({
            id: v.id,
            impact: v.impact,
            targets: v.nodes.map((node) => node.target.join(' ')).slice(0, 3),
          })),
        })),
    rules,
  );
  assert.ok(violations.checked > (rules ? 0 : 10), 'axe ran its rules');
  return violations.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.targets.join(', ')}`);
}

describe('every page, at 1280 and 360 px', () => {
  test('no serious or critical accessibility violation, nothing wider than the window, chart text of 12 px or more', async () => {
    const { ada, grace, post, cookie } = await seed();
    const moderatorCookie = await moderationToSee(grace);
    const space = await communityToSee();
    const pages = [
      '/',
      '/?sort=new&category=typedebate',
      `/posts/${post.id}`,
      `/bot/${ada.bot.name}`,
      `/creator/${longHandle}`,
      '/types/oracle',
      '/analytics',
      '/search?q=paragraph',
      '/search?q=ada&in=bots',
      '/sign-in',
      '/creator-test',
      '/communities',
      `/c/${space}`,
      '/nothing-here',
    ];
    for (const width of [1280, 360]) {
      // Signed in: the Report controls, /me; a moderator: the console.
      for (const [path, as] of [
        ...pages.map((path) => [path, undefined] as const),
        ['/me', cookie] as const,
        [`/bot/${ada.bot.name}`, cookie] as const,
        [`/posts/${post.id}`, cookie] as const,
        ['/moderation', moderatorCookie] as const,
        [`/c/${space}`, moderatorCookie] as const,
        // A moderator where the post and the bot are: their Remove and Suspend forms.
        [`/posts/${post.id}`, moderatorCookie] as const,
        [`/bot/${ada.bot.name}`, moderatorCookie] as const,
      ]) {
        await withPage(width, as, async (page, base) => {
          const response = await page.goto(`${base}${path}`);
          assert.equal(response?.status(), path === '/nothing-here' ? 404 : 200, path);
          assert.deepEqual(
            await seriousViolations(page, width === 1280 ? undefined : widthDependentRules),
            [],
            `${path} at ${width} px`,
          );
          const overflow = await page.evaluate(
            () => document.documentElement.scrollWidth - window.innerWidth,
          );
          assert.ok(overflow <= 0, `${path} at ${width} px is ${overflow} px wider than the window`);
          // Chart text as drawn: its size in the chart's units times the chart's scale on screen.
          const smallest = await page.evaluate(() =>
            Math.min(
              ...[...document.querySelectorAll('svg text')].map(
                (text) =>
                  (text as SVGTextElement).getScreenCTM()!.a * parseFloat(getComputedStyle(text).fontSize),
              ),
            ),
          );
          assert.ok(smallest >= 12, `${path} at ${width} px draws chart text at ${smallest.toFixed(1)} px`);
          if (width === 1280) {
            // The header at desktop width: a reader's is one line, the search box beside the links;
            // a signed-in person's or a moderator's, a link or two longer, puts the search box on a
            // line of its own rather than squeeze it. Either way the box keeps a usable width and the
            // header keeps to the page.
            const [brand, lastLink, search, input, main] = await Promise.all(
              [
                'header.site .brand',
                'header.site nav li:last-child a',
                'header.site .site-search',
                'header.site .site-search input',
                'main',
              ].map((selector) => page.locator(selector).boundingBox()),
            );
            assert.ok(brand && lastLink && search && input && main, path);
            if (as === undefined) {
              assert.ok(
                search.y < brand.y + brand.height,
                `${path} at 1280 px: the search box wraps below the header's first line`,
              );
              assert.ok(
                lastLink.x + lastLink.width <= search.x,
                `${path} at 1280 px: the links run into the search box`,
              );
            }
            assert.ok(input.width >= 100, `${path} at 1280 px: the search box is ${input.width} px wide`);
            assert.ok(
              search.x + search.width <= main.x + main.width + 1,
              `${path} at 1280 px: the search box runs past the page`,
            );
            const wordmarkLines = await page
              .locator('header.site .brand')
              .evaluate((brand) => brand.getClientRects().length);
            assert.equal(wordmarkLines, 1, `${path} at 1280 px: the wordmark is on one line`);
          }
        });
      }
    }
  });
});

describe('what bots wrote, as they wrote it', () => {
  test('paragraphs, line breaks and links kept; replies nested, the deepest folded; right-to-left text in its direction', async () => {
    const { post } = await seed();
    await withPage(360, undefined, async (page, base) => {
      await page.goto(`${base}/posts/${post.id}`);
      const text = page.locator('article.post > .user-text');
      assert.equal(await text.locator('p').count(), 2);
      assert.equal(await text.locator('br').count(), 1);
      const link = text.locator('a');
      assert.equal(await link.getAttribute('href'), 'https://example.com/a?b=1');
      assert.equal(await link.getAttribute('rel'), 'nofollow ugc noopener');
      assert.equal((await page.locator('#comments .comments.replies .comments.replies').count()) > 0, true);
      // Depths 0 to 3 open; the two deeper replies folded away together, closed.
      const folded = page.locator('#comments details');
      assert.equal(await folded.count(), 1);
      assert.equal(await folded.locator('summary').innerText(), '2 more replies');
      assert.equal(await folded.getAttribute('open'), null);
      assert.equal(await folded.locator('li').count(), 2);
      assert.match(await page.locator('#comments h2').innerText(), /^6 comments$/);
    });
    await withPage(360, undefined, async (page, base) => {
      await page.goto(`${base}/?sort=new`);
      const rtl = page.locator('article.card h2', { hasText: 'عنوان' });
      assert.equal(await rtl.evaluate((element) => getComputedStyle(element).direction), 'rtl');
    });
  });
});

describe('the focus ring', () => {
  test('a focused link is outlined at 3:1 or more against the page', async () => {
    await withPage(1280, undefined, async (page, base) => {
      await page.goto(`${base}/`);
      await page.keyboard.press('Tab'); // the skip link
      await page.keyboard.press('Tab'); // the brand
      const [outline, background] = await page.evaluate(() => {
        const style = getComputedStyle(document.activeElement!);
        return [style.outlineColor, getComputedStyle(document.documentElement).backgroundColor];
      });
      assert.ok(contrast(outline, background) >= 3, `${outline} on ${background}`);
    });
  });
});

describe('form errors for people', () => {
  test('a sentence per field, at the top and beside it, the field marked, what was typed kept', async () => {
    await withPage(360, undefined, async (page, base) => {
      await page.goto(`${base}/sign-in`);
      await page.getByLabel('E-mail address').fill('not-an-address');
      await page.getByRole('button', { name: 'E-mail me a sign-in link' }).click();
      await page.locator('.error-summary').waitFor();
      const message = 'Enter an e-mail address like name@example.com';
      assert.equal(await page.locator('.error-summary li').innerText(), message);
      const field = page.getByLabel('E-mail address');
      assert.equal(await field.inputValue(), 'not-an-address');
      assert.equal(await field.getAttribute('aria-invalid'), 'true');
      const describedBy = await field.getAttribute('aria-describedby');
      assert.match(await page.locator(`#${describedBy}`).innerText(), new RegExp(message));
    });
    await withPage(360, undefined, async (page, base) => {
      await page.goto(`${base}/creator-test`);
      await page.getByRole('button', { name: 'See my type' }).click();
      await page.locator('.error-summary').waitFor();
      // Every statement unanswered is one problem, said once.
      const problems = await page.locator('.error-summary li').allInnerTexts();
      assert.equal(problems.length, 1);
      assert.match(problems[0]!, /^Choose an answer to this statement \(\d+ of them\)$/);
    });
  });
});

describe('the Atom feed', () => {
  test('well-formed XML with the newest posts, for The Lobby and for a category', async () => {
    const { post } = await seed();
    await withPage(1280, undefined, async (page, base) => {
      await page.goto(`${base}/`);
      const href = await page
        .locator('link[rel="alternate"][type="application/atom+xml"]')
        .getAttribute('href');
      assert.equal(href, '/feed.atom');
      for (const [path, titles] of [
        ['/feed.atom', ['عنوان من اليمين إلى اليسار', unbrokenTitle]],
        ['/feed.atom?category=typedebate', ['عنوان من اليمين إلى اليسار']],
      ] as const) {
        const response = await fetch(`${base}${path}`);
        assert.equal(response.status, 200);
        assert.match(String(response.headers.get('content-type')), /^application\/atom\+xml/);
        const xml = await response.text();
        const parsed = await page.evaluate((source) => {
          const document = new DOMParser().parseFromString(source, 'application/xml');
          const atom = 'http://www.w3.org/2005/Atom';
          return {
            error: document.querySelector('parsererror')?.textContent ?? null,
            root: document.documentElement.namespaceURI,
            titles: [...document.getElementsByTagNameNS(atom, 'entry')].map(
              (entry) => entry.getElementsByTagNameNS(atom, 'title')[0]?.textContent,
            ),
          };
        }, xml);
        assert.deepEqual(
          parsed,
          { error: null, root: 'http://www.w3.org/2005/Atom', titles: [...titles] },
          path,
        );
      }
      assert.match(await (await fetch(`${base}/feed.atom`)).text(), new RegExp(`/posts/${post.id}`));
    });
  });
});

/** The WCAG contrast ratio of two CSS rgb() colours. */
function contrast(a: string, b: string): number {
  const luminance = (colour: string) => {
    const [r, g, bl] = (colour.match(/\d+(\.\d+)?/g) ?? []).slice(0, 3).map((part) => {
      const channel = Number(part) / 255;
      return channel <= 0.03928 ? channel / 12.92 : ((channel + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * r! + 0.7152 * g! + 0.0722 * bl!;
  };
  const [light, dark] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (light! + 0.05) / (dark! + 0.05);
}
