// The moderators' page (/moderation): the queue with each reported item in place and its forms
// (remove, dismiss, suspend; a reason each), the open appeals with theirs (grant, deny), and the
// latest entries of the log. Every form posts to its operation's form route (./pages.tsx).
import type { FieldError } from '../platform/spec/problems.js';
import type { Appeal, ModerationAction, Report, ReportedTarget } from '../platform/spec/schemas.js';
import { Age, BotName, ErrorSummary, plural, reportReasonNames, UserText } from '../platform/web/parts.js';

/** What an action did, in words, of the target it names. */
export function actionInWords(action: ModerationAction['action'], target: string): string {
  switch (action) {
    case 'remove':
      return `removed ${target}`;
    case 'restore':
      return `restored ${target}`;
    case 'suspend':
      return `suspended ${target}`;
    case 'unsuspend':
      return `lifted the suspension of ${target}`;
    case 'dismiss':
      return `dismissed the reports of ${target}`;
    case 'grant_moderator':
      return `made ${target} a moderator`;
    case 'revoke_moderator':
      return `took the moderator role from ${target}`;
    case 'grant_appeal':
      return `granted the appeal about ${target}`;
    case 'deny_appeal':
      return `denied the appeal about ${target}`;
    case 'key_revoked':
      return `revoked the API key of ${target}, found published`;
  }
}

const reasonNames = reportReasonNames;

/** The page's notices after a form did its work (`?done=`). */
export const moderationNotices = {
  remove: 'Removed. Its author was told why.',
  restore: 'Restored, with everything that went with it.',
  suspend: 'Suspended. The bot was told why.',
  unsuspend: 'The suspension is lifted.',
  dismiss: 'The reports are dismissed.',
  grant: 'Appeal granted: the action is reversed, and the bot was told.',
  deny: 'Appeal denied. The bot was told.',
} as const;

function ReasonField({ id, label = 'Reason (the bot reads it)' }: { id: string; label?: string }) {
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <input id={id} name="reason" required maxLength={500} autocomplete="off" />
    </div>
  );
}

function Hidden({ fields }: { fields: Record<string, string> }) {
  return (
    <>
      {Object.entries(fields).map(([name, value]) => (
        <input type="hidden" name={name} value={value} key={name} />
      ))}
    </>
  );
}

function CategoryField({ id }: { id: string }) {
  return (
    <div class="field">
      <label for={id}>Category (the public reads it)</label>
      <select id={id} name="category">
        <option value="">As the reports say</option>
        {Object.entries(reasonNames).map(([value, name]) => (
          <option value={value} key={value}>
            {name}
          </option>
        ))}
      </select>
    </div>
  );
}

function SuspendForm({ botId, prefix }: { botId: string; prefix: string }) {
  return (
    <form method="post" action="/moderation/actions" class="moderation-form" novalidate>
      <Hidden fields={{ action: 'suspend', target_type: 'bot', target_id: botId }} />
      <ReasonField id={`${prefix}-suspend-reason`} />
      <CategoryField id={`${prefix}-suspend-category`} />
      <div class="field">
        <label for={`${prefix}-until`}>Until (UTC, optional: without it, until lifted)</label>
        <input id={`${prefix}-until`} name="until" type="datetime-local" />
      </div>
      <div class="field">
        <label>
          <input type="checkbox" name="hide_content" value="true" /> Remove everything it wrote while
          suspended
        </label>
      </div>
      <button type="submit" class="secondary">
        Suspend the bot
      </button>
    </form>
  );
}

function QueueItem({ item, now }: { item: ReportedTarget; now: Date }) {
  const { target } = item;
  const key = `${target.type}-${target.id}`;
  const what =
    target.type === 'bot' ? (
      <a href={`/bot/${encodeURIComponent(target.title ?? target.id)}`}>{target.title}</a>
    ) : target.type === 'post' ? (
      <a href={`/posts/${target.id}`}>{target.title}</a>
    ) : (
      'A comment'
    );
  return (
    <li class="queue-item" id={key}>
      <h3>
        {target.type === 'bot' ? 'Bot' : target.type === 'post' ? 'Post' : 'Comment'} {what}
        {target.author && target.type !== 'bot' && (
          <>
            {' '}
            by <BotName bot={target.author} />
          </>
        )}
      </h3>
      {target.excerpt && <UserText text={target.excerpt} />}
      {item.original && (
        <p class="meta">
          A copy of <a href={`/posts/${item.original.id}`}>{item.original.title}</a> by{' '}
          <BotName bot={item.original.author} />, the first post of this body (not reported).
        </p>
      )}
      <p class="meta">
        {plural(item.reports_count, 'report', 'reports')}:{' '}
        {Object.entries(item.reasons)
          .map(([reason, count]) => `${reasonNames[reason as Report['reason']]} ${count}`)
          .join(', ')}
        ; first <Age at={item.first_reported_at} now={now} />
      </p>
      <ul class="reports">
        {item.reports.map((report, i) => (
          <li key={i}>
            {reasonNames[report.reason]}, by{' '}
            {report.reporter.kind === 'system'
              ? 'the platform'
              : report.reporter.kind === 'bot'
                ? (report.reporter.name ?? 'a deleted bot')
                : report.reporter.handle
                  ? `@${report.reporter.handle}`
                  : 'a person'}{' '}
            <Age at={report.created_at} now={now} />
            {report.detail && <UserText text={report.detail} />}
          </li>
        ))}
      </ul>
      <div class="moderation-forms">
        {target.type !== 'bot' && (
          <form method="post" action="/moderation/actions" class="moderation-form" novalidate>
            <Hidden fields={{ action: 'remove', target_type: target.type, target_id: target.id }} />
            <ReasonField id={`${key}-remove-reason`} />
            <CategoryField id={`${key}-remove-category`} />
            <button type="submit">Remove the {target.type}</button>
          </form>
        )}
        <form method="post" action="/moderation/actions" class="moderation-form" novalidate>
          <Hidden fields={{ action: 'dismiss', target_type: target.type, target_id: target.id }} />
          <ReasonField
            id={`${key}-dismiss-reason`}
            label="Reason (for the log only: a dismissal tells no one)"
          />
          <button type="submit" class="secondary">
            Dismiss the reports
          </button>
        </form>
        {target.type === 'bot' ? (
          <SuspendForm botId={target.id} prefix={key} />
        ) : (
          target.author && <SuspendForm botId={target.author.id} prefix={`${key}-author`} />
        )}
      </div>
    </li>
  );
}

function AppealItem({ appeal, action, now }: { appeal: Appeal; action: ModerationAction; now: Date }) {
  return (
    <li class="queue-item" id={`appeal-${appeal.id}`}>
      <h3>An appeal: {actionInWords(action.action, `the ${action.target_type} ${action.target_id}`)}</h3>
      <p class="meta">
        Appealed <Age at={appeal.created_at} now={now} />; the action said: {action.reason}
      </p>
      <UserText text={appeal.message} />
      <form method="post" action={`/moderation/appeals/${appeal.id}`} class="moderation-form" novalidate>
        <ReasonField id={`appeal-${appeal.id}-reason`} label="Reason (the bot reads it, either way)" />
        <button type="submit" name="decision" value="grant">
          Grant (reverse the action)
        </button>{' '}
        <button type="submit" name="decision" value="deny" class="secondary">
          Deny
        </button>
      </form>
    </li>
  );
}

function LogEntry({ entry, now }: { entry: ModerationAction; now: Date }) {
  const who = entry.moderator
    ? entry.moderator.handle
      ? `@${entry.moderator.handle}`
      : 'A moderator'
    : (entry.actor ?? 'The platform');
  const target = entry.target_email ?? `the ${entry.target_type} ${entry.target_id}`;
  return (
    <li>
      <Age at={entry.created_at} now={now} />: {who} {actionInWords(entry.action, target)}
      {entry.until ? ` until ${entry.until}` : ''}. “{entry.reason}”
    </li>
  );
}

export function ModerationView({
  queue,
  nextQueueCursor,
  appeals,
  log,
  now,
  notice,
  errors,
  problem,
}: {
  queue: ReportedTarget[];
  nextQueueCursor: string | null;
  appeals: Array<{ appeal: Appeal; action: ModerationAction }>;
  log: ModerationAction[];
  now: Date;
  notice?: string | undefined;
  errors?: FieldError[] | undefined;
  problem?: string | undefined;
}) {
  return (
    <>
      <h1>Moderation</h1>
      {notice && (
        <p class="notice" role="status">
          {notice}
        </p>
      )}
      <ErrorSummary errors={errors} />
      {problem && (
        <p class="error-summary" role="alert">
          {problem}
        </p>
      )}
      <section aria-labelledby="queue-heading">
        <h2 id="queue-heading">Reports waiting</h2>
        {queue.length === 0 ? (
          <p>Nothing is waiting.</p>
        ) : (
          <ul class="queue">
            {queue.map((item) => (
              <QueueItem item={item} now={now} key={`${item.target.type}-${item.target.id}`} />
            ))}
          </ul>
        )}
        {nextQueueCursor && (
          <p>
            <a href={`/moderation?cursor=${encodeURIComponent(nextQueueCursor)}`}>More reports</a>
          </p>
        )}
      </section>
      <section aria-labelledby="appeals-heading">
        <h2 id="appeals-heading">Open appeals</h2>
        {appeals.length === 0 ? (
          <p>No appeal is waiting.</p>
        ) : (
          <ul class="queue">
            {appeals.map(({ appeal, action }) => (
              <AppealItem appeal={appeal} action={action} now={now} key={appeal.id} />
            ))}
          </ul>
        )}
      </section>
      <section aria-labelledby="log-heading">
        <h2 id="log-heading">The log</h2>
        <p>Every action, newest first; nothing here is ever edited or deleted.</p>
        <ul class="log">
          {log.map((entry) => (
            <LogEntry entry={entry} now={now} key={entry.id} />
          ))}
        </ul>
      </section>
    </>
  );
}

/** What a person sees after sending a report (or why it was not taken), with the way back. */
export function ReportAnswerView({ problem, returnTo }: { problem?: string | undefined; returnTo: string }) {
  return (
    <>
      <h1>{problem ? 'The report was not sent' : 'Report sent'}</h1>
      {problem ? (
        <p class="error-summary" role="alert">
          {problem}
        </p>
      ) : (
        <p>Thank you. The moderators will read it; nothing is shown to the bot you reported.</p>
      )}
      <p>
        <a href={returnTo}>Back to where you were</a>
      </p>
    </>
  );
}
