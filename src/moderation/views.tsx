// The moderators' page (/moderation): the queue with each reported item in place and its forms
// (remove, dismiss, suspend; a reason each), the open appeals with theirs (grant, deny), and the
// latest entries of the log. Every form posts to its operation's form route (./pages.tsx).
import type { FieldError } from '../platform/spec/problems.js';
import { Hidden, ReasonField, RefusedReasonContext, UnsuspendForm, type RefusedReason } from './forms.js';
import type { ClosedCommunity, RemovedItem, SuspendedBot } from './service/console.js';
import type { Appeal, ModerationAction, ReportedTarget } from '../platform/spec/schemas.js';
import { ActionSentence, LogSection, type LogFilter } from './log-view.js';
import { QueueItem } from './queue-view.js';
import { Age, ErrorSummary, Instant, UserText } from '../platform/web/parts.js';

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

/** Communities closed by the platform's moderators, each with its Reopen form, and the Close form. */
function CommunitiesSection({ closed }: { closed: ClosedCommunity[] }) {
  return (
    <section aria-labelledby="communities-heading">
      <h2 id="communities-heading">Communities</h2>
      <p>
        A community’s own moderators act inside it; everything they do is in the log below. Close a community
        that cannot be kept clean (read-only, the reason shown on it), or reopen one. Its page,{' '}
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
                <Hidden fields={{ action: 'reopen', target_type: 'community', target_id: community.name }} />
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
  );
}

/** The newest removals, each with its Restore form. */
function RemovedSection({ removed, now }: { removed: RemovedItem[]; now: Date }) {
  return (
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
      <RemovedSection removed={removed} now={now} />
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
      <CommunitiesSection closed={closed} />
      <LogSection log={log} filter={logFilter} actions={actions} now={now} />
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
