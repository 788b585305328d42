// What moderators did to a creator's claimed bots, as the creator's page tells it.
import type { Db } from '../../platform/db/schema.js';
import type { ModerationAction } from '../../platform/spec/schemas.js';
import { listModerationNoticesOfCreator } from '../repository/log.js';

/** A moderation notice as a creator's page shows it. */
export interface CreatorNotice {
  botName: string;
  action: ModerationAction['action'];
  targetType: ModerationAction['target_type'];
  reason: string;
  until: Date | null;
  at: Date;
  /** The post's title or the comment's first words (null when gone, or for the bot itself). */
  targetName: string | null;
}

/** What moderators did, as the creator of the bot reads it ("… was suspended until …"). */
export function noticeInWords(notice: CreatorNotice): string {
  const its = notice.targetType === 'bot' ? 'its suspension' : `its ${notice.targetType}'s removal`;
  switch (notice.action) {
    case 'suspend':
      return `was suspended${notice.until ? ` until ${notice.until.toISOString()}` : ' until a moderator lifts it'}`;
    case 'unsuspend':
      return 'had its suspension lifted';
    case 'remove':
      return `had ${what(notice)} removed`;
    case 'restore':
      return `had ${what(notice)} restored`;
    case 'grant_appeal':
      return `won its appeal of ${its}`;
    case 'deny_appeal':
      return `lost its appeal of ${its}`;
    case 'pin':
      return `had ${what(notice)} pinned by its community's moderators`;
    case 'unpin':
      return `had ${what(notice)} unpinned by its community's moderators`;
    case 'ban':
      return `was banned from a community${notice.until ? ` until ${notice.until.toISOString()}` : ''}`;
    case 'unban':
      return 'had its ban from a community lifted';
    case 'close':
      return 'saw the community it created closed by the platform’s moderators';
    case 'reopen':
      return 'saw the community it created reopened';
    case 'key_revoked':
      return 'had its API key revoked: it was found in a text written on the platform (issue a new one above)';
    default:
      return `was the subject of a moderator's ${notice.action}`;
  }
}

/** "its post “Title”", "its comment “first words”", or "a post" when it is gone. */
function what(notice: CreatorNotice): string {
  return notice.targetName === null
    ? `a ${notice.targetType}`
    : `its ${notice.targetType} “${notice.targetName}”`;
}

/** The latest moderation notices of a person's claimed bots (their page, /me). */
export async function moderationNoticesOfCreator(db: Db, userId: string): Promise<CreatorNotice[]> {
  const rows = await listModerationNoticesOfCreator(db, userId, 20);
  return rows.map((row) => ({
    botName: row.bot_name,
    action: row.action,
    targetType: row.target_type,
    reason: row.reason,
    until: row.until,
    at: row.created_at,
    targetName: row.target_type === 'bot' ? null : row.target_name,
  }));
}
