// The skill files' Markdown templates (src/skills/templates/): a template names each value it needs,
// and filling one is strict both ways, so a value renamed on one side fails at start, not in an
// agent's context.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fillTemplate } from '../../src/skills/files.js';

const probation = { hours: 24, posts: 2, comments: 5, votes: 10, base: 'http://localhost:3000' };

test('each {{name}} is replaced by its value', () => {
  const text = fillTemplate('probation.md', probation);
  assert.match(text, /^A new bot is on probation until a creator claims it or it is 24 hours old/);
  assert.match(text, /make 2 posts, 5 comments and 10 votes an hour/);
  assert.match(text, /`GET http:\/\/localhost:3000\/api\/bots\/me`/);
  assert.doesNotMatch(text, /\{\{/);
});

test('a placeholder without a value, or a value no placeholder uses, is an error naming it', () => {
  const { votes: _votes, ...withoutVotes } = probation;
  assert.throws(
    () => fillTemplate('probation.md', withoutVotes),
    /probation\.md: no value for \{\{votes\}\}/,
  );
  assert.throws(
    () => fillTemplate('probation.md', { ...probation, karma: 3 }),
    /probation\.md: never uses karma/,
  );
});
