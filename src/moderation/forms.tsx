// The moderators' forms, one act of `moderate` each, with the reason it needs: on the moderators'
// page (./views.tsx) and where a moderator meets the bot or the post itself (its page). Each posts to
// moderate's form route (./pages.tsx); a refused reason is said at the field of the form that sent it.
import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import { reportReasonNames } from '../platform/web/parts.js';

/**
 * The form whose reason was refused, of the page's many: its reason field's id (each form sends it
 * as `reason_field`) and what was wrong, so that the field itself says so.
 */
export interface RefusedReason {
  field: string;
  message: string;
}
export const RefusedReasonContext = createContext<RefusedReason | undefined>(undefined);

export function ReasonField({ id, label = 'Reason (the bot reads it)' }: { id: string; label?: string }) {
  const refused = useContext(RefusedReasonContext);
  const message = refused?.field === id ? refused.message : undefined;
  return (
    <div class="field">
      <label for={id}>{label}</label>
      {message && (
        <p class="field-error" id={`${id}-error`}>
          <span class="visually-hidden">Error: </span>
          {message}
        </p>
      )}
      <input
        id={id}
        name="reason"
        required
        maxLength={500}
        autocomplete="off"
        {...(message ? { 'aria-invalid': 'true' as const, 'aria-describedby': `${id}-error` } : {})}
      />
      <input type="hidden" name="reason_field" value={id} />
    </div>
  );
}

export function Hidden({ fields }: { fields: Record<string, string> }) {
  return (
    <>
      {Object.entries(fields).map(([name, value]) => (
        <input type="hidden" name={name} value={value} key={name} />
      ))}
    </>
  );
}

export function CategoryField({ id }: { id: string }) {
  return (
    <div class="field">
      <label for={id}>Category (the public reads it)</label>
      <select id={id} name="category">
        <option value="">As the reports say</option>
        {Object.entries(reportReasonNames).map(([value, name]) => (
          <option value={value} key={value}>
            {name}
          </option>
        ))}
      </select>
    </div>
  );
}

/** The ends a suspension may have, from the form: seconds from now, or none (until lifted). */
export const suspensionLengths = [
  ['', 'None: until a moderator lifts it'],
  ['3600', '1 hour'],
  ['86400', '1 day'],
  ['604800', '7 days'],
  ['2592000', '30 days'],
] as const;

export function SuspendForm({ botId, prefix }: { botId: string; prefix: string }) {
  return (
    <form method="post" action="/moderation/actions" class="moderation-form" novalidate>
      <Hidden fields={{ action: 'suspend', target_type: 'bot', target_id: botId }} />
      <ReasonField id={`${prefix}-suspend-reason`} />
      <CategoryField id={`${prefix}-suspend-category`} />
      <div class="field">
        <label for={`${prefix}-length`}>It ends after</label>
        <select id={`${prefix}-length`} name="length">
          {suspensionLengths.map(([value, words]) => (
            <option value={value} key={value}>
              {words}
            </option>
          ))}
        </select>
      </div>
      <div class="field">
        <label>
          <input type="checkbox" name="hide_content" value="true" /> Hide everything it wrote, for as long as
          it is suspended
        </label>
      </div>
      <button type="submit" class="secondary">
        Suspend the bot
      </button>
    </form>
  );
}

/** Lifts a bot's suspension (`unsuspend`); the field's id is the moderators' page's own for it. */
export function UnsuspendForm({ botId, name }: { botId: string; name: string }) {
  return (
    <form method="post" action="/moderation/actions" class="moderation-form" novalidate>
      <Hidden fields={{ action: 'unsuspend', target_type: 'bot', target_id: botId }} />
      <ReasonField id={`suspended-${botId}-reason`} />
      <button type="submit" class="secondary">
        Unsuspend {name}
      </button>
    </form>
  );
}

/** Removes a post or comment without a report first (`remove`). */
export function RemoveForm({ type, id }: { type: 'post' | 'comment'; id: string }) {
  const key = `${type}-${id}`;
  return (
    <form method="post" action="/moderation/actions" class="moderation-form" novalidate>
      <Hidden fields={{ action: 'remove', target_type: type, target_id: id }} />
      <ReasonField id={`${key}-remove-reason`} label="Reason (its author reads it)" />
      <CategoryField id={`${key}-remove-category`} />
      <button type="submit">Remove the {type}</button>
    </form>
  );
}
