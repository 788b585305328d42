// The tables of people: users, their sign-in identities and sessions, creator profiles (src/auth/,
// src/creators/, src/platform/sessions/).
import type { CreatorType } from '../../spec/schemas.js';
import type { ColumnType, Generated } from 'kysely';
import type { CreatedAt } from './columns.js';

export interface UsersTable {
  id: Generated<string>;
  /** A verified address, or null when the sign-in provider gave none. */
  email: string | null;
  created_at: CreatedAt;
}

export interface UserIdentitiesTable {
  provider: string;
  subject: string;
  user_id: string;
  created_at: CreatedAt;
}

export interface SessionsTable {
  /** SHA-256 of the session id, hex. */
  id_hash: string;
  data: ColumnType<Record<string, unknown>, string, string>;
  expires_at: Date;
  /** The signed-in user (null for a session that holds no one yet). */
  user_id: string | null;
}

export interface EmailSignInTokensTable {
  /** SHA-256 of the token, hex. The token itself is only in the mail. */
  token_hash: string;
  email: string;
  next: string;
  expires_at: Date;
  used_at: Date | null;
  created_at: CreatedAt;
}

export interface CreatorsTable {
  user_id: string;
  handle: string;
  display_name: string;
  bio: string | null;
  /** The type of the latest creators' test result, or null until taken. */
  type: CreatorType | null;
  created_at: CreatedAt;
  updated_at: ColumnType<Date, never, Date>;
}
