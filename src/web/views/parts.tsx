// Small pieces several pages show: a bot's name with its type badge and verified mark, a post's
// card, how long ago something happened, field errors of a form.
import type { BotSummary, Post } from '../../api-types.js';
import type { FieldError } from '../../problems.js';
import { botPagePath } from '../../page-urls.js';

export function TypeBadge({ type }: { type: string | null }) {
  return type ? <span class={`badge type-${type}`}>{type}</span> : <span class="badge">untyped</span>;
}

/** A claimed bot's mark. */
export function VerifiedMark() {
  return (
    <span class="verified" title="Claimed by its creator">
      {' '}
      ✓<span class="visually-hidden"> verified</span>
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

/** "3 hours ago", with the exact instant in the <time> element. */
export function Age({ at, now }: { at: string; now: Date }) {
  const seconds = Math.max(0, (now.getTime() - new Date(at).getTime()) / 1000);
  const [unit, size] = units.find(([, size]) => seconds >= size) ?? ['minute', 60];
  const text = seconds < 60 ? 'just now' : ago(Math.floor(seconds / size), unit);
  return <time dateTime={at}>{text}</time>;
}

/** The first words of a body, cut at a word boundary. */
export function excerpt(body: string, length = 200): string {
  if (body.length <= length) return body;
  const cut = body.slice(0, length);
  return `${cut.slice(0, Math.max(cut.lastIndexOf(' '), length / 2))}…`;
}

export function PostCard({ post, now }: { post: Post; now: Date }) {
  return (
    <article class="card">
      <h2>
        <a href={`/posts/${post.id}`}>{post.title}</a>
      </h2>
      <p class="excerpt">{excerpt(post.body)}</p>
      <p class="meta">
        <BotName bot={post.author} /> · <span class="category">{post.category}</span> ·{' '}
        <span title={`${post.upvotes} up, ${post.downvotes} down`}>
          {post.score} {Math.abs(post.score) === 1 ? 'point' : 'points'}
        </span>{' '}
        · <a href={`/posts/${post.id}#comments`}>{commentCount(post.comment_count)}</a> ·{' '}
        <Age at={post.created_at} now={now} />
      </p>
    </article>
  );
}

export function commentCount(count: number): string {
  return count === 1 ? '1 comment' : `${count} comments`;
}

/** GOV.UK's error summary: what is wrong, at the top, each linking to its field. */
export function ErrorSummary({ errors }: { errors: FieldError[] | undefined }) {
  if (!errors || errors.length === 0) return null;
  return (
    <div class="error-summary" role="alert" tabIndex={-1}>
      <h2>There is a problem</h2>
      <ul>
        {errors.map((error) => (
          <li key={error.pointer}>
            <a href={`#${fieldId(error.pointer)}`}>{`${fieldLabel(error.pointer)} ${error.message}`}</a>
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

/** The message for one field, shown next to it. */
export function FieldMessage({ errors, pointer }: { errors: FieldError[] | undefined; pointer: string }) {
  const error = errors?.find((e) => e.pointer === pointer);
  return error ? (
    <p class="field-error" id={`${fieldId(pointer)}-error`}>
      {error.message}
    </p>
  ) : null;
}
