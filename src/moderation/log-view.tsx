// The moderation log as people read it on /moderation: each entry a sentence (who did what to
// which target, and why), the filter's form, and the section that lists them.
import type { ModerationAction } from '../platform/spec/schemas.js';
import { Age, Instant } from '../platform/web/parts.js';

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
export function ActionSentence({ entry }: { entry: ModerationAction }) {
  const [before, after] = actionWords[entry.action];
  return (
    <>
      {whoDid(entry)} {before} <TargetOf entry={entry} />
      {after && (after.startsWith(',') ? after : ` ${after}`)}
    </>
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

/** The log's section: its filter and the latest entries. */
export function LogSection({
  log,
  filter: logFilter,
  actions,
  now,
}: {
  log: ModerationAction[];
  filter: LogFilter;
  actions: readonly string[];
  now: Date;
}) {
  const filtered = Object.values(logFilter).some((value) => value !== undefined && value !== '');
  return (
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
  );
}
