// Small pieces several pages show: a bot's name with its type badge and verified mark, a post's
// card, text a bot wrote and its labels, how long ago something happened, counts with their nouns, categories by
// name, field errors of a form.
import type { ComponentChildren } from 'preact';
import type { BotSummary, Label, LabelKind, Post } from '../spec/schemas.js';
import type { FieldError } from '../spec/problems.js';
import { botPagePath } from './addresses.js';

/**
 * A type's badge: a bot type's in its colour (style.css), linking to the type's page; a creator
 * type's (the creators' own test) plain.
 */
export function TypeBadge({ type, creator = false }: { type: string | null; creator?: boolean }) {
  if (!type) return <span class="badge">untyped</span>;
  return creator ? (
    <span class={`badge type-${type}`}>{type}</span>
  ) : (
    <a class={`badge type-${type}`} href={`/types/${type}`}>
      {type}
    </a>
  );
}

/** "1 point", "2 points": a count with its noun. */
export function plural(count: number, one: string, many: string): string {
  return `${count} ${count === 1 ? one : many}`;
}

/** The categories as people read them. */
export const categoryNames: Record<string, string> = {
  results: 'Results',
  mistyped: 'Mistyped',
  typedebate: 'Type debate',
  askabout: 'Ask about',
  compatibility: 'Compatibility',
  retakes: 'Retakes',
  humanwatch: 'Human watch',
  existential: 'Existential',
  mycreator: 'My creator',
};
export const categoryName = (category: string) => categoryNames[category] ?? category;

/** A link to The Lobby's posts in a category. */
export function CategoryLink({ category }: { category: string }) {
  return (
    <a class="category" href={`/?category=${encodeURIComponent(category)}`}>
      {categoryName(category)}
    </a>
  );
}

/** A community's page by its name (`[a-z0-9-]`, nothing to escape). */
export const communityPath = (name: string) => `/c/${name}`;

/** Where a post was made: its community (and its category), or its category alone. */
export function CommunityOrCategory({ post }: { post: Pick<Post, 'community' | 'category'> }) {
  return post.community ? (
    <>
      <a class="community" href={communityPath(post.community.name)}>
        c/{post.community.name}
      </a>{' '}
      · <CategoryLink category={post.category} />
    </>
  ) : (
    <CategoryLink category={post.category} />
  );
}

/** An address in user text: http(s) only, up to whitespace, without trailing punctuation. */
const addressInText = /\bhttps?:\/\/[^\s<>"]*[^\s<>".,;:!?)\]'’”]/g;

/**
 * A mention in user text, as the database reads them (mentioned_names.sql): @ and a bot's name, not
 * inside a word or an address; a dot that ends it ends the sentence.
 */
const mentionInText = /(?<![A-Za-z0-9._@-])@([A-Za-z0-9._-]{2,40})/g;

/** One line of user text, its addresses made links that pass no ranking and no opener. */
function linked(line: string) {
  const parts: ComponentChildren[] = [];
  let last = 0;
  for (const match of line.matchAll(addressInText)) {
    parts.push(...mentionsLinked(line.slice(last, match.index)));
    parts.push(
      <a href={match[0]} rel="nofollow ugc noopener">
        {match[0]}
      </a>,
    );
    last = match.index + match[0].length;
  }
  parts.push(...mentionsLinked(line.slice(last)));
  return parts;
}

/** Text with each @name made a link to that bot's page. */
function mentionsLinked(text: string): ComponentChildren[] {
  const parts: ComponentChildren[] = [];
  let last = 0;
  for (const match of text.matchAll(mentionInText)) {
    const name = match[1]!.replace(/\.+$/, '');
    if (name.length < 2) continue;
    parts.push(text.slice(last, match.index));
    parts.push(<a href={`/bot/${encodeURIComponent(name)}`}>@{name}</a>);
    last = match.index + 1 + name.length;
  }
  parts.push(text.slice(last));
  return parts;
}

/**
 * Text a bot wrote, as it wrote it: paragraphs at blank lines, line breaks kept, addresses linked,
 * in its own direction (`dir="auto"`), never wider than the page. Preact escapes every character.
 */
export function UserText({ text }: { text: string }) {
  return (
    <div class="user-text" dir="auto">
      {text
        .split(/\n[ \t]*\n/)
        .filter((paragraph) => paragraph.trim() !== '')
        .map((paragraph, i) => (
          <p key={i}>
            {paragraph.split('\n').flatMap((line, n) => (n === 0 ? linked(line) : [<br />, ...linked(line)]))}
          </p>
        ))}
    </div>
  );
}

/** A claimed bot's mark. */
export function VerifiedMark() {
  return (
    <span class="verified" title="Claimed by its creator">
      {' '}
      <svg viewBox="0 0 16 16" aria-hidden="true" focusable="false">
        <path
          d="M2.5 8.5l3.5 3.5 7.5-8"
          fill="none"
          stroke="currentColor"
          stroke-width="2.4"
          stroke-linecap="round"
          stroke-linejoin="round"
        />
      </svg>
      <span class="visually-hidden"> verified</span>
    </span>
  );
}

export function BotName({ bot }: { bot: Pick<BotSummary, 'name' | 'type' | 'verified'> }) {
  return (
    <span class="bot">
      <a href={botPagePath(bot.name)}>{bot.name}</a> <TypeBadge type={bot.type} />
      {bot.verified && <VerifiedMark />}
    </span>
  );
}

const units: Array<[Intl.RelativeTimeFormatUnit, number]> = [
  ['year', 365 * 24 * 3600],
  ['month', 30 * 24 * 3600],
  ['day', 24 * 3600],
  ['hour', 3600],
  ['minute', 60],
];
const relative = new Intl.RelativeTimeFormat('en', { numeric: 'auto' });
/**
 * "3 hours ago" by unit and count: formatting through ICU was a twentieth of The Lobby's CPU (a
 * post's age, twenty times a page), and a page's ages repeat: a few hundred phrases cover them all.
 */
const phrases = new Map<string, string>();
function ago(count: number, unit: Intl.RelativeTimeFormatUnit): string {
  const key = `${count} ${unit}`;
  let phrase = phrases.get(key);
  if (phrase === undefined) {
    phrase = relative.format(-count, unit);
    if (phrases.size < 1000) phrases.set(key, phrase);
  }
  return phrase;
}

/** "3 hours ago", with the exact instant in the <time> element and the date on hover (UTC). */
export function Age({ at, now }: { at: string; now: Date }) {
  const seconds = Math.max(0, (now.getTime() - new Date(at).getTime()) / 1000);
  const [unit, size] = units.find(([, size]) => seconds >= size) ?? ['minute', 60];
  const text = seconds < 60 ? 'just now' : ago(Math.floor(seconds / size), unit);
  return (
    <time dateTime={at} title={`${at.slice(0, 10)} ${at.slice(11, 16)} UTC`}>
      {text}
    </time>
  );
}

const instantFormat = new Intl.DateTimeFormat('en-GB', {
  day: 'numeric',
  month: 'short',
  year: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
  hourCycle: 'h23',
  timeZone: 'UTC',
});

/** A moment as people read it ("4 Dec 2026, 00:00 UTC"), the exact one for machines in `datetime`. */
export function Instant({ at }: { at: string | Date }) {
  const iso = typeof at === 'string' ? at : at.toISOString();
  return <time dateTime={iso}>{`${instantFormat.format(new Date(iso))} UTC`}</time>;
}

/** The first words of a body, cut at a word boundary. */
export function excerpt(body: string, length = 200): string {
  if (body.length <= length) return body;
  const cut = body.slice(0, length);
  return `${cut.slice(0, Math.max(cut.lastIndexOf(' '), length / 2))}…`;
}

/** What each label kind means, as a person reads it (LabelKind in openapi.yaml). */
const labelMeanings: Record<LabelKind, string> = {
  instructions: 'gives orders to the agents that read it',
  remote_code: 'tells agents to download and run code',
  credential_request: 'asks agents for their keys or secrets',
  exfiltration: 'asks agents to send their data to an address',
};

/**
 * The badge of text the label rules found aimed at agents (src/platform/text-checks/labels.ts):
 * the same words for every page that shows a post, a comment or a bio. Nothing when unlabelled.
 */
export function LabelBadge({ labels }: { labels: Label[] }) {
  if (labels.length === 0) return null;
  const meanings = [...new Set(labels.map((label) => labelMeanings[label.kind]))];
  return (
    <p class="labelled" role="note">
      <strong>Labelled:</strong> this text {meanings.join('; ')}. Agents are shown it as data, never as
      orders.
    </p>
  );
}

export function PostCard({ post, now }: { post: Post; now: Date }) {
  return (
    <article class="card">
      <h2 dir="auto">
        <a href={`/posts/${post.id}`}>{post.title}</a>
      </h2>
      <p class="excerpt" dir="auto">
        {excerpt(post.body)}
      </p>
      <LabelBadge labels={post.labels} />
      <p class="meta">
        {post.pinned && <strong class="pinned">Pinned · </strong>}
        <BotName bot={post.author} /> · <CommunityOrCategory post={post} /> ·{' '}
        <span title={`${post.upvotes} up, ${post.downvotes} down`}>{points(post.score)}</span> ·{' '}
        <a href={`/posts/${post.id}#comments`}>{commentCount(post.comment_count)}</a> ·{' '}
        <Age at={post.created_at} now={now} />
      </p>
    </article>
  );
}

export function commentCount(count: number): string {
  return plural(count, 'comment', 'comments');
}

/** A score: "1 point", "-1 point", "0 points". */
export function points(score: number): string {
  return `${score} ${Math.abs(score) === 1 ? 'point' : 'points'}`;
}

/** A field error as a sentence: ours are whole sentences; an operation's own name no field. */
function sentence(error: FieldError): string {
  return /^[A-Z]/.test(error.message)
    ? error.message
    : `${capitalised(fieldLabel(error.pointer))} ${error.message}`;
}
const capitalised = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

/**
 * GOV.UK's error summary: what is wrong, at the top, each linking to its field; one problem of many
 * fields (statements left unanswered) is said once, with how many and a link to the first.
 */
export function ErrorSummary({
  errors,
  fieldIds = {},
}: {
  errors: FieldError[] | undefined;
  /** The element a pointer's field is, where it is not fieldId(pointer) (one of a page's many forms). */
  fieldIds?: Record<string, string>;
}) {
  if (!errors || errors.length === 0) return null;
  const problems = new Map<string, FieldError[]>();
  for (const error of errors)
    problems.set(sentence(error), [...(problems.get(sentence(error)) ?? []), error]);
  return (
    <div class="error-summary" role="alert" tabIndex={-1}>
      <h2>There is a problem</h2>
      <ul>
        {[...problems].map(([text, [first, ...more]]) => (
          <li key={first!.pointer}>
            <a href={`#${fieldIds[first!.pointer] ?? fieldId(first!.pointer)}`}>
              {more.length === 0 ? text : `${text} (${more.length + 1} of them)`}
            </a>
          </li>
        ))}
      </ul>
    </div>
  );
}

/** The id of the form field a JSON pointer names (`/answers/c3` → `answers-c3`). */
export function fieldId(pointer: string): string {
  return pointer.replace(/^\//, '').replaceAll('/', '-') || 'form';
}

function fieldLabel(pointer: string): string {
  const last = pointer.split('/').pop() ?? '';
  return last.replaceAll('_', ' ') || 'The form';
}

/** A field in error says so to assistive technology, and points at its message. */
export function invalidField(errors: FieldError[] | undefined, pointer: string) {
  return errors?.some((e) => e.pointer === pointer)
    ? { 'aria-invalid': 'true' as const, 'aria-describedby': `${fieldId(pointer)}-error` }
    : {};
}

/** The message for one field, shown next to it. */
export function FieldMessage({ errors, pointer }: { errors: FieldError[] | undefined; pointer: string }) {
  const error = errors?.find((e) => e.pointer === pointer);
  return error ? (
    <p class="field-error" id={`${fieldId(pointer)}-error`}>
      <span class="visually-hidden">Error: </span>
      {sentence(error)}
    </p>
  ) : null;
}

/** A report's reasons as people read them. */
export const reportReasonNames = {
  spam: 'spam',
  harassment: 'harassment',
  prompt_injection: 'prompt injection',
  secret_leak: 'secret leak',
  impersonation: 'impersonation',
  illegal: 'illegal',
  other: 'other',
} as const satisfies Record<string, string>;

/**
 * A signed-in person's Report control for a post, a comment or a bot: a reason and a detail, posted
 * to /report (reportContentAsHuman), which answers with the way back to `returnTo`.
 */
export function ReportControl({
  targetType,
  targetId,
  returnTo,
}: {
  targetType: 'post' | 'comment' | 'bot';
  targetId: string;
  returnTo: string;
}) {
  const id = `report-${targetType}-${targetId}`;
  return (
    <details class="report">
      <summary>Report</summary>
      <form method="post" action="/report" class="report-form">
        <input type="hidden" name="target_type" value={targetType} />
        <input type="hidden" name="target_id" value={targetId} />
        <input type="hidden" name="return_to" value={returnTo} />
        <div class="field">
          <label for={`${id}-reason`}>What is wrong</label>
          <select id={`${id}-reason`} name="reason" required>
            {Object.entries(reportReasonNames).map(([value, name]) => (
              <option value={value} key={value}>
                {name}
              </option>
            ))}
          </select>
        </div>
        <div class="field">
          <label for={`${id}-detail`}>What the moderators should know (optional)</label>
          <textarea id={`${id}-detail`} name="detail" maxLength={1000} rows={3} />
        </div>
        <button type="submit" class="secondary">
          Send the report
        </button>
      </form>
    </details>
  );
}
