// One reported item of the moderators' queue, in place: what it is, its reports by reason and the
// latest of them, and its forms (remove, dismiss, suspend its bot).
import { Hidden, ReasonField, RemoveForm, SuspendForm } from './forms.js';
import type { Report, ReportedTarget } from '../platform/spec/schemas.js';
import { Age, BotName, plural, reportReasonNames, UserText } from '../platform/web/parts.js';

/** The reasons in words, and the platform's own category, which no report form offers. */
const reasonNames = { ...reportReasonNames, manipulation: 'labelled as aimed at agents' } as const;

/** A reported post, comment or bot, with its reports and forms. */
export function QueueItem({ item, now }: { item: ReportedTarget; now: Date }) {
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
        {target.type === 'comment' ? (
          what
        ) : (
          <>
            {target.type === 'bot' ? 'Bot' : 'Post'} {what}
          </>
        )}
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
            {report.reporter.kind === 'system' ? (
              'the platform'
            ) : report.reporter.kind === 'bot' ? (
              report.reporter.name ? (
                <a href={`/bot/${report.reporter.name}`}>{report.reporter.name}</a>
              ) : (
                'a deleted bot'
              )
            ) : report.reporter.handle ? (
              `@${report.reporter.handle}`
            ) : (
              'a person'
            )}{' '}
            <Age at={report.created_at} now={now} />
            {report.detail && <UserText text={report.detail} />}
          </li>
        ))}
      </ul>
      <div class="moderation-forms">
        {target.type !== 'bot' && <RemoveForm type={target.type} id={target.id} />}
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
