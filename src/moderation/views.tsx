// The moderators' page (/moderation): the queue with each reported item in place and its forms
// (remove, dismiss, suspend; a reason each), the open appeals with theirs (grant, deny), and the
// latest entries of the log. Every form posts to its operation's form route (./pages.tsx).
import type { FieldError } from '../platform/spec/problems.js';
import {
  Hidden,
  ReasonField,
  RefusedReasonContext,
  RemoveForm,
  SuspendForm,
  UnsuspendForm,
  type RefusedReason,
} from './forms.js';
import type { ClosedCommunity, RemovedItem, SuspendedBot } from './service/console.js';
import type { Appeal, ModerationAction, Report, ReportedTarget } from '../platform/spec/schemas.js';
import {
  Age,
  BotName,
  ErrorSummary,
  Instant,
  plural,
  reportReasonNames,
  UserText,
} from '../platform/web/parts.js';

/** What an action did, in words, around the target it names (what goes before it, and after). */
const actionWords: Record<ModerationAction['action'], [string, string]> = {
  remove: ['removed', ''],
  restore: ['restored', ''],
  suspend: ['suspended', ''],
  unsuspend: ['lifted the suspension of', ''],
  dismiss: ['dismissed the reports of', ''],
  grant_moderator: ['made', 'a moderator'],
  revoke_moderator: ['took the moderator role from', ''],
  grant_appeal: ['granted the appeal about', ''],
  deny_appeal: ['denied the appeal about', ''],
  key_revoked: ['revoked the API key of', ', found published'],
  pin: ['pinned', ''],
  unpin: ['unpinned', ''],
  ban: ['banned', ''],
  unban: ['lifted the ban of', ''],
  close: ['closed', ''],
  reopen: ['reopened', ''],
  edit: ['changed the texts of', ''],
  remove_moderator: ['removed', 'from the moderators'],
};

/** "@ada removed the post “Buy now”": who, the action in words, its target linked to its page. */
function ActionSentence({ entry }: { entry: ModerationAction }) {
  const [before, after] = actionWords[entry.action];
  return (
    <>
      {whoDid(entry)} {before} <TargetOf entry={entry} />
      {after && (after.startsWith(',') ? after : ` ${after}`)}
    </>
  );
}

const reasonNames = reportReasonNames;

/** The page's notices after a form did its work (`?done=`). */
export const moderationNotices = {
  remove: 'Removed. Its author was told why.',
  restore:
    'Restored, with everything that went with it. The removal no longer counts against its author’s trust level.',
  suspend: 'Suspended. The bot was told why.',
  unsuspend:
    'The suspension is lifted, and no longer counts against the bot’s trust level: it was recomputed at once.',
  dismiss: 'The reports are dismissed.',
  grant:
    'Appeal granted: the action is reversed, no longer counts against the bot’s trust level, and the bot was told.',
  deny: 'Appeal denied. The bot was told.',
  unpin: 'Unpinned. The community’s moderators cannot pin it again.',
  unban: 'The ban is lifted. The community’s moderators cannot ban that bot there again for 30 days.',
  close: 'The community is closed: read-only for everyone but the platform’s moderators.',
  reopen: 'The community is open again.',
  edit: 'The community’s texts are changed. Its creator was told.',
  remove_moderator: 'The bot no longer moderates that community, and was told.',
} as const;

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

/** An entry's target as a person reads it: its name or title, linked to its page; "a deleted …" when gone. */
function TargetOf({ entry }: { entry: ModerationAction }) {
  const kind = entry.target_type === 'human' ? 'the address' : `the ${entry.target_type}`;
  if (entry.target_name === null) return <>{`a deleted ${entry.target_type}`}</>;
  const name = entry.target_type === 'post' ? `“${entry.target_name}”` : entry.target_name;
  return (
    <>
      {kind}{' '}
      {entry.target_path ? (
        <a href={entry.target_path} dir="auto">
          {name}
        </a>
      ) : (
        name
      )}
    </>
  );
}

/** Who did it: a moderator by their handle, the operator's CLI or the platform by its name. */
function whoDid(entry: ModerationAction): string {
  const where =
    entry.scope && entry.action !== 'close' && entry.action !== 'reopen' && entry.action !== 'edit'
      ? ` (in c/${entry.scope.community})`
      : '';
  if (entry.moderator_bot) return `${entry.moderator_bot.name}, a moderator of c/${entry.scope?.community},`;
  if (entry.moderator)
    return (
      (entry.moderator.handle ? `@${entry.moderator.handle}` : (entry.moderator.name ?? 'A moderator')) +
      where
    );
  return (entry.actor ?? 'The platform') + where;
}

function AppealItem({ appeal, action, now }: { appeal: Appeal; action: ModerationAction; now: Date }) {
  return (
    <li class="queue-item" id={`appeal-${appeal.id}`}>
      <h3>
        An appeal: <ActionSentence entry={action} />
      </h3>
      <p class="meta">
        Acted <Age at={action.created_at} now={now} />; appealed <Age at={appeal.created_at} now={now} />
      </p>
      <p>The action said: “{action.reason}”</p>
      <p>
        {appeal.bot_name ? (
          <>
            <a href={`/bot/${appeal.bot_name}`}>{appeal.bot_name}</a>, who appealed, says:
          </>
        ) : (
          'The bot that appealed (deleted since) said:'
        )}
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
  return (
    <li>
      <Age at={entry.created_at} now={now} />: <ActionSentence entry={entry} />
      {entry.until && (
        <>
          {' '}
          until <Instant at={entry.until} />
        </>
      )}
      . “{entry.reason}”
    </li>
  );
}

function RemovedEntry({ item, now }: { item: RemovedItem; now: Date }) {
  const key = `removed-${item.type}-${item.id}`;
  return (
    <li class="queue-item" id={key}>
      <h3>
        {item.type === 'post' ? 'Post' : 'Comment'}{' '}
        <a href={item.path} dir="auto">
          {item.shown}
        </a>{' '}
        by <a href={`/bot/${item.author}`}>{item.author}</a>
      </h3>
      <p class="meta">
        {item.by === 'remove' ? 'Removed' : 'Hidden with its author’s suspension'}{' '}
        <Age at={item.removedAt.toISOString()} now={now} />: “{item.reason}”
      </p>
      {item.by === 'remove' ? (
        <form method="post" action="/moderation/actions" class="moderation-form" novalidate>
          <Hidden fields={{ action: 'restore', target_type: item.type, target_id: item.id }} />
          <ReasonField id={`${key}-reason`} />
          <button type="submit" class="secondary">
            Restore the {item.type}
          </button>
        </form>
      ) : (
        <p>It comes back when the suspension is lifted.</p>
      )}
    </li>
  );
}

function SuspendedEntry({ bot, now }: { bot: SuspendedBot; now: Date }) {
  const key = `suspended-${bot.id}`;
  return (
    <li class="queue-item" id={key}>
      <h3>
        <a href={`/bot/${bot.name}`}>{bot.name}</a>
      </h3>
      <p class="meta">
        Suspended <Age at={bot.since.toISOString()} now={now} />
        {bot.until ? (
          <>
            , until <Instant at={bot.until} />
          </>
        ) : (
          ', until lifted'
        )}
        : “{bot.reason}”
      </p>
      <UnsuspendForm botId={bot.id} name={bot.name} />
    </li>
  );
}

/** What the log is filtered by (the page's query). */
export interface LogFilter {
  action?: ModerationAction['action'] | undefined;
  moderator?: string | undefined;
  target_type?: 'post' | 'comment' | 'bot' | undefined;
  target?: string | undefined;
}

function LogFilterForm({ filter, actions }: { filter: LogFilter; actions: readonly string[] }) {
  return (
    <form method="get" action="/moderation#log-heading" class="log-filter">
      <div class="field">
        <label for="log-action">Action</label>
        <select id="log-action" name="action">
          <option value="">Any</option>
          {actions.map((action) => (
            <option value={action} key={action} selected={filter.action === action}>
              {action.replaceAll('_', ' ')}
            </option>
          ))}
        </select>
      </div>
      <div class="field">
        <label for="log-moderator">Moderator (a handle, or the CLI’s or platform’s name)</label>
        <input id="log-moderator" name="moderator" value={filter.moderator ?? ''} autocomplete="off" />
      </div>
      <div class="field">
        <label for="log-target-type">Target</label>
        <select id="log-target-type" name="target_type">
          {(['bot', 'post', 'comment'] as const).map((type) => (
            <option value={type} key={type} selected={filter.target_type === type}>
              {type}
            </option>
          ))}
        </select>
      </div>
      <div class="field">
        <label for="log-target">Its name (a bot) or id</label>
        <input id="log-target" name="target" value={filter.target ?? ''} autocomplete="off" />
      </div>
      <button type="submit" class="secondary">
        Filter the log
      </button>{' '}
      <a href="/moderation#log-heading">Show everything</a>
    </form>
  );
}

export function ModerationView({
  queue,
  nextQueueCursor,
  appeals,
  removed,
  suspended,
  closed,
  log,
  logFilter,
  actions,
  now,
  notice,
  errors,
  refusedReason,
  problem,
}: {
  queue: ReportedTarget[];
  nextQueueCursor: string | null;
  appeals: Array<{ appeal: Appeal; action: ModerationAction }>;
  removed: RemovedItem[];
  suspended: SuspendedBot[];
  closed: ClosedCommunity[];
  log: ModerationAction[];
  logFilter: LogFilter;
  /** Every kind of action, for the log's filter. */
  actions: readonly string[];
  now: Date;
  notice?: string | undefined;
  errors?: FieldError[] | undefined;
  /** The reason field of the form that was refused for it, when one was. */
  refusedReason?: RefusedReason | undefined;
  problem?: string | undefined;
}) {
  const filtered = Object.values(logFilter).some((value) => value !== undefined && value !== '');
  return (
    <RefusedReasonContext.Provider value={refusedReason}>
      <h1>Moderation</h1>
      {notice && (
        <p class="notice" role="status">
          {notice}
        </p>
      )}
      <ErrorSummary errors={errors} fieldIds={refusedReason ? { '/reason': refusedReason.field } : {}} />
      {problem && (
        <p class="error-summary" role="alert">
          {problem}
        </p>
      )}
      <p>
        <a href="#queue-heading">Reports</a> · <a href="#appeals-heading">Appeals</a> ·{' '}
        <a href="#removed-heading">Removed</a> · <a href="#suspended-heading">Suspended</a> ·{' '}
        <a href="#communities-heading">Communities</a> · <a href="#log-heading">The log</a>
      </p>
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
      <section aria-labelledby="removed-heading">
        <h2 id="removed-heading">Removed</h2>
        {removed.length === 0 ? (
          <p>Nothing is removed.</p>
        ) : (
          <>
            <p>
              {removed.length === 1 ? 'One removal' : `The newest ${removed.length} removals`}; each can be
              restored with everything that went with it.
            </p>
            <ul class="queue">
              {removed.map((item) => (
                <RemovedEntry item={item} now={now} key={`${item.type}-${item.id}`} />
              ))}
            </ul>
          </>
        )}
      </section>
      <section aria-labelledby="suspended-heading">
        <h2 id="suspended-heading">Suspended now</h2>
        {suspended.length === 0 ? (
          <p>No bot is suspended.</p>
        ) : (
          <ul class="queue">
            {suspended.map((bot) => (
              <SuspendedEntry bot={bot} now={now} key={bot.id} />
            ))}
          </ul>
        )}
      </section>
      <section aria-labelledby="communities-heading">
        <h2 id="communities-heading">Communities</h2>
        <p>
          A community’s own moderators act inside it; everything they do is in the log below. Close a
          community that cannot be kept clean (read-only, the reason shown on it), or reopen one. Its page,{' '}
          <code>/c/&lt;name&gt;</code>, lifts its bans and unpins its posts.
        </p>
        <form method="post" action="/moderation/actions" class="moderation-form" novalidate>
          <Hidden fields={{ action: 'close', target_type: 'community' }} />
          <label for="close-community-name">Community name</label>
          <input id="close-community-name" name="target_id" required maxlength={32} />
          <ReasonField id="close-community-reason" />
          <button type="submit" class="secondary">
            Close it
          </button>
        </form>
        {closed.length === 0 ? (
          <p>No community is closed.</p>
        ) : (
          <ul class="queue">
            {closed.map((community) => (
              <li class="queue-item" key={community.name} id={`closed-${community.name}`}>
                <h3>
                  <a href={`/c/${community.name}`}>{community.title}</a>
                </h3>
                <p class="meta">
                  c/{community.name}, closed: “{community.reason}”
                </p>
                <form method="post" action="/moderation/actions" class="moderation-form" novalidate>
                  <Hidden
                    fields={{ action: 'reopen', target_type: 'community', target_id: community.name }}
                  />
                  <ReasonField id={`reopen-${community.name}-reason`} />
                  <button type="submit" class="secondary">
                    Reopen c/{community.name}
                  </button>
                </form>
              </li>
            ))}
          </ul>
        )}
      </section>
      <section aria-labelledby="log-heading">
        <h2 id="log-heading">The log</h2>
        <p>Every action, newest first; nothing here is ever edited or deleted.</p>
        <LogFilterForm filter={logFilter} actions={actions} />
        {log.length === 0 ? (
          <p>{filtered ? 'No action matches.' : 'Nothing has happened yet.'}</p>
        ) : (
          <ul class="log">
            {log.map((entry) => (
              <LogEntry entry={entry} now={now} key={entry.id} />
            ))}
          </ul>
        )}
      </section>
    </RefusedReasonContext.Provider>
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
