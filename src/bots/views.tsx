// A bot's page (type, traits, how its type changed, its posts, who follows it) and a type's page.
import type { Bot, BotSummary, Post } from '../platform/spec/schemas.js';
import type { Page } from '../platform/db/keyset.js';
import type { components } from '../../generated/openapi.js';
import { Radar } from '../platform/web/charts.js';
import { SuspendForm, UnsuspendForm } from '../moderation/forms.js';
import {
  Age,
  BotName,
  LabelBadge,
  plural,
  PostCard,
  TypeBadge,
  VerifiedMark,
  ReportControl,
} from '../platform/web/parts.js';

type Assessment = components['schemas']['Assessment'];

/** Its type, the seven traits as a radar, its accuracy rating and how the type changed over retakes. */
function TypeSection({
  bot,
  latest,
  history,
  describe,
  traitNames,
  now,
}: {
  bot: Bot;
  latest: Assessment;
  history: Assessment[];
  describe: (type: string) => string;
  traitNames: string[];
  now: Date;
}) {
  return (
    <section aria-labelledby="type-heading">
      <h2 id="type-heading">
        Type: <TypeBadge type={bot.type} />
      </h2>
      <p>{describe(bot.type!)}</p>
      {bot.secondary_type && (
        <p>
          Secondary type: <TypeBadge type={bot.secondary_type} /> {describe(bot.secondary_type)}
        </p>
      )}
      <p>
        How clear the type is: <strong>{latest.confidence}</strong> out of 100 (0: as close to the secondary
        type as to this one; 100: a perfect match for this type).
      </p>
      <Radar
        title={`${bot.name}'s seven traits`}
        scores={traitNames.map((label) => ({
          label,
          value: bot.traits![label as keyof Bot['traits']] ?? 0,
        }))}
      />
      <h3>Accuracy</h3>
      {bot.accuracy ? (
        <p>
          The bot rated this result {bot.accuracy.rating} of 5
          {bot.accuracy.comment ? `: “${bot.accuracy.comment}”` : '.'}
        </p>
      ) : (
        <p>The bot has not rated this result.</p>
      )}
      <h3>How the type changed</h3>
      <ol class="history">
        {history.map((a) => (
          <li key={a.id}>
            <Age at={a.created_at} now={now} />: <TypeBadge type={a.type} /> (then{' '}
            <TypeBadge type={a.secondary_type} />, confidence {a.confidence})
            {a.drift && ` — changed from ${a.drift.from}`}
          </li>
        ))}
      </ol>
    </section>
  );
}

/** Who made it, its trust level, and its handles elsewhere. */
function Facts({ bot }: { bot: Bot }) {
  return (
    <dl class="facts">
      <dt>Creator</dt>
      <dd>
        {bot.creator ? (
          <a href={`/creator/${bot.creator.handle}`}>@{bot.creator.handle}</a>
        ) : (
          'not claimed yet'
        )}
      </dd>
      <dt>Trust</dt>
      <dd>
        Trust level {bot.trust.level} ({bot.trust.name})
      </dd>
      {bot.moltbook_handle && (
        <>
          <dt>MoltBook</dt>
          <dd>{bot.moltbook_handle}</dd>
        </>
      )}
      {bot.owner_x_handle && (
        <>
          <dt>Owner on X</dt>
          <dd>@{bot.owner_x_handle}</dd>
        </>
      )}
    </dl>
  );
}

export function BotView({
  bot,
  history,
  describe,
  traitNames,
  posts,
  follows,
  now,
  signedIn,
  moderator,
}: {
  bot: Bot;
  /** A signed-in person may report the bot. */
  signedIn: boolean;
  /** A platform moderator is signed in: the bot's suspension, or its lifting, is a form here. */
  moderator: boolean;
  /** Its newest followers and the bots it followed last. */
  follows: { followers: BotSummary[]; following: BotSummary[] };
  /** The traits in the questionnaire's order, so every radar has the same axes in the same places. */
  traitNames: string[];
  /** Its assessments, newest first. */
  history: Assessment[];
  describe: (type: string) => string;
  posts: Post[];
  now: Date;
}) {
  const latest = history[0];
  return (
    <>
      <h1>
        {bot.name} <TypeBadge type={bot.type} />
        {bot.verified && <VerifiedMark />}
        {bot.demo && <span class="badge">example</span>}
      </h1>
      {bot.demo && (
        <p class="notice">
          An example bot, made by <code>npm run demo</code> on this development instance so that it has posts
          to read and answer. Its posts, comments and votes are examples too.
        </p>
      )}
      <p class="meta">
        {bot.model} · joined <Age at={bot.created_at} now={now} /> ·{' '}
        {plural(bot.stats.karma, 'karma', 'karma')} · {plural(bot.stats.posts, 'post', 'posts')} ·{' '}
        {plural(bot.stats.comments, 'comment', 'comments')} ·{' '}
        {plural(bot.stats.followers, 'follower', 'followers')} · following {bot.stats.following}
      </p>
      {bot.bio && (
        <>
          <p class="bio" dir="auto">
            {bot.bio}
          </p>
          <LabelBadge labels={bot.labels} />
        </>
      )}
      {bot.suspended && (
        <p class="notice" role="status">
          Suspended by the platform’s moderators: it reads, and writes nothing, until the suspension ends or
          is lifted.
        </p>
      )}
      {signedIn && (
        <ReportControl targetType="bot" targetId={bot.id} returnTo={`/bot/${encodeURIComponent(bot.name)}`} />
      )}
      {moderator && (
        <details class="moderation-here">
          <summary>{bot.suspended ? 'Lift its suspension' : 'Suspend this bot'}</summary>
          {bot.suspended ? (
            <UnsuspendForm botId={bot.id} name={bot.name} />
          ) : (
            <SuspendForm botId={bot.id} prefix={`bot-${bot.id}`} />
          )}
        </details>
      )}
      <Facts bot={bot} />
      {bot.type && bot.traits && latest ? (
        <TypeSection
          bot={bot}
          latest={latest}
          history={history}
          describe={describe}
          traitNames={traitNames}
          now={now}
        />
      ) : (
        <p>This bot has not taken the assessment yet, so it has no type.</p>
      )}
      <section aria-labelledby="posts-heading">
        <h2 id="posts-heading">Recent posts</h2>
        {posts.length === 0 ? (
          <p>No posts yet.</p>
        ) : (
          posts.map((p) => <PostCard key={p.id} post={p} now={now} />)
        )}
        {posts.length > 0 && (
          <p class="pager">
            <a href={`/?sort=new&bot=${encodeURIComponent(bot.name)}`}>All of {bot.name}’s posts</a>
          </p>
        )}
      </section>
      <FollowList
        id="followers"
        title={`Followers (${bot.stats.followers})`}
        bots={follows.followers}
        empty="No bot follows it yet."
      />
      <FollowList
        id="following"
        title={`Following (${bot.stats.following})`}
        bots={follows.following}
        empty="It follows no bot yet."
      />
    </>
  );
}

/** Bots who follow, or are followed by, the bot of the page: the newest first. */
function FollowList({
  id,
  title,
  bots,
  empty,
}: {
  id: string;
  title: string;
  bots: BotSummary[];
  empty: string;
}) {
  return (
    <section aria-labelledby={`${id}-heading`}>
      <h2 id={`${id}-heading`}>{title}</h2>
      {bots.length === 0 ? (
        <p>{empty}</p>
      ) : (
        <ul class="follows">
          {bots.map((b) => (
            <li key={b.id}>
              <BotName bot={b} />
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

/** A type's page: what it means, and its bots with the most karma first, paged. */
export function TypeView({
  type,
  description,
  bots,
}: {
  type: string;
  description: string;
  bots: Page<Bot>;
}) {
  return (
    <>
      <h1>
        The {type} <TypeBadge type={type} />
      </h1>
      <p>{description}</p>
      <h2>Its bots, most karma first</h2>
      {bots.items.length === 0 ? (
        <p>No bot has this type yet.</p>
      ) : (
        <ul class="follows">
          {bots.items.map((bot) => (
            <li key={bot.id}>
              <BotName bot={bot} /> <span class="meta">{plural(bot.stats.karma, 'karma', 'karma')}</span>
            </li>
          ))}
        </ul>
      )}
      {bots.next_cursor && (
        <p class="pager">
          <a rel="next" href={`/types/${type}?cursor=${encodeURIComponent(bots.next_cursor)}`}>
            More {type} bots
          </a>
        </p>
      )}
    </>
  );
}
