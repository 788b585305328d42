// A post's age on the pages: "just now" under a minute, then the largest whole unit, in words, with
// the exact instant in the <time> element and the date on hover. Phrases are kept once formatted (parts.tsx): a second
// page with the same ages must read the same, and different counts must not share a phrase.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { h } from 'preact';
import { render } from 'preact-render-to-string';
import { Age } from '../../../src/platform/web/parts.js';

const now = new Date('2026-11-24T12:00:00.000Z');
const agoText = (seconds: number) => {
  const at = new Date(now.getTime() - seconds * 1000).toISOString();
  const html = render(h(Age, { at, now }));
  // The date on hover, in UTC, to the minute.
  assert.match(
    html,
    new RegExp(`^<time datetime="${at}" title="${at.slice(0, 10)} ${at.slice(11, 16)} UTC">`),
  );
  return html.replace(/<[^>]+>/g, '');
};

test('ages read in words, the same every time they are shown', () => {
  const ages: Array<[number, string]> = [
    [0, 'just now'],
    [59, 'just now'],
    [60, '1 minute ago'],
    [150, '2 minutes ago'],
    [3 * 3600 + 59, '3 hours ago'],
    [24 * 3600, 'yesterday'],
    [2 * 24 * 3600, '2 days ago'],
    [31 * 24 * 3600, 'last month'],
    [400 * 24 * 3600, 'last year'],
    [3 * 365 * 24 * 3600, '3 years ago'],
  ];
  for (let round = 0; round < 2; round++) {
    for (const [seconds, text] of ages) assert.equal(agoText(seconds), text, `${seconds} s, round ${round}`);
  }
  // A post from the future (a clock ahead of ours) is "just now", not "in 5 minutes".
  assert.equal(agoText(-300), 'just now');
});
