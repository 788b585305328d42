// Least privilege in the database (docs/deploy.md): the server can run as a role that owns nothing,
// so that its credentials cannot alter a table or disable a trigger (the moderation log's, which
// keeps it append-only). These are that role's grants, made by the schema's owner:
// `npm run admin -- create-app-role <name>` prints them, `--apply` runs them. Running them again
// (after an upgrade) changes nothing but what a new migration needs.
import { sql } from 'kysely';
import type { Db } from './schema.js';

/** Tables the server only appends to: the database refuses it every UPDATE and DELETE there. */
const appendOnlyTables = ['moderation_actions'];
/** Tables the server only reads: the migrator's, which say whether the schema is up to date. */
const readOnlyTables = ['kysely_migration', 'kysely_migration_lock', 'schema_definitions'];

/** SQLSTATE of what the connection's role may not do. */
const insufficientPrivilege = '42501';

/** A role name we quote as an identifier: letters, digits and `_`, not starting with a digit. */
export const appRoleName = /^[a-z_][a-z0-9_]{0,62}$/;

/**
 * The statements that make `role` (created if it does not exist, able to log in, no password: set
 * one with ALTER ROLE, or use the server's own authentication) a user of this database's schema
 * and nothing more, run by the schema's owner: rows of every table it may read and write, the log
 * without UPDATE or DELETE, the sequences its inserts draw from, and the same for the tables later
 * migrations of this owner create. The timeouts a transaction pooler cannot set per connection are
 * set on the role (docs/deploy.md).
 */
export function appRoleGrants(
  role: string,
  { statementTimeoutMs }: { statementTimeoutMs: number },
): string[] {
  if (!appRoleName.test(role)) throw new Error(`not a role name we create: ${JSON.stringify(role)}`);
  const name = `"${role}"`;
  return [
    `do $$ begin
  if not exists (select from pg_roles where rolname = '${role}') then create role ${name} login; end if;
end $$`,
    `do $$ begin execute format('grant connect on database %I to ${name}', current_database()); end $$`,
    `grant usage on schema public to ${name}`,
    `grant select, insert, update, delete on all tables in schema public to ${name}`,
    `revoke insert, update, delete, truncate on ${readOnlyTables.join(', ')} from ${name}`,
    `revoke update, delete, truncate on ${appendOnlyTables.join(', ')} from ${name}`,
    `grant usage, select on all sequences in schema public to ${name}`,
    `grant execute on all functions in schema public to ${name}`,
    `alter default privileges in schema public grant select, insert, update, delete on tables to ${name}`,
    `alter default privileges in schema public grant usage, select on sequences to ${name}`,
    `alter role ${name} set statement_timeout = '${statementTimeoutMs}ms'`,
    `alter role ${name} set idle_in_transaction_session_timeout = '30s'`,
  ];
}

/** The role does not exist, and the owner may not create roles (no CREATEROLE): an administrator must. */
export class AppRoleMissingError extends Error {
  constructor(role: string) {
    super(
      `The role ${role} does not exist, and this connection's role may not create roles. Create it as a ` +
        `superuser or a role with CREATEROLE (CREATE ROLE ${role} LOGIN PASSWORD '...'), then run this again.`,
    );
    this.name = 'AppRoleMissingError';
  }
}

/**
 * Runs appRoleGrants() in one transaction, as the connection's role (the schema's owner). The
 * role's settings need CREATEROLE, which an owner may lack: those it could not set are returned, for
 * an administrator to run (the grants stand either way).
 */
export async function createAppRole(
  db: Db,
  role: string,
  options: { statementTimeoutMs: number },
): Promise<{ notSet: string[] }> {
  const [create, ...rest] = appRoleGrants(role, options);
  const notSet: string[] = [];
  await db.transaction().execute(async (trx) => {
    try {
      await sql.raw(create!).execute(trx);
    } catch (error) {
      if ((error as { code?: unknown }).code === insufficientPrivilege) throw new AppRoleMissingError(role);
      throw error;
    }
    for (const statement of rest) {
      if (!statement.startsWith('alter role ')) {
        await sql.raw(statement).execute(trx);
        continue;
      }
      await sql`savepoint role_setting`.execute(trx);
      try {
        await sql.raw(statement).execute(trx);
      } catch (error) {
        if ((error as { code?: unknown }).code !== insufficientPrivilege) throw error;
        await sql`rollback to savepoint role_setting`.execute(trx);
        notSet.push(statement);
      }
    }
  });
  return { notSet };
}
