// The database's code, in view: every function and trigger has one current definition, a .sql file
// in the `sql/` folder of the area or mechanism that owns it (`src/feed/sql/create_post.sql`: the
// function and the triggers that run it). The migrator applies them after the versioned migrations,
// in the manner of Flyway's repeatable migrations: a file whose checksum differs from the one
// recorded in schema_definitions is run again, in the declared order below, in the same transaction.
// So each file can run any number of times: CREATE OR REPLACE, or DROP ... IF EXISTS then CREATE
// (a constraint trigger). Rules for changing one: docs/architecture.md, "The database's code".
import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { sql } from 'kysely';
import { packageFile } from '../../config/package-files.js';
import type { Db } from './schema.js';

/**
 * The folders (under src/) whose `sql/` holds definitions, in the order they are applied; the files
 * of a folder in name order. A file's triggers follow its function; function bodies are checked
 * when they run, not when defined, so a function may call one defined later.
 */
export const definitionFolders = [
  'platform/admission',
  'platform/event-streams',
  'bots',
  'creators',
  'assessments',
  'feed',
  'communities',
  'follows',
  'blocks',
  'notifications',
  'search',
  'moderation',
  'trust',
  'analytics',
  'webhooks',
  'messages',
] as const;

export interface Definition {
  /** Its path under src/, without `sql/`: `feed/create_post.sql`. */
  name: string;
  text: string;
  checksum: string;
}

/** Every definition file, in the order they are applied. */
export async function loadDefinitions(): Promise<Definition[]> {
  // Read at once, not one after another: this is part of every start.
  const folders = await Promise.all(
    definitionFolders.map(async (folder) => {
      const directory = packageFile(`src/${folder}/sql/`, `src/${folder}/sql/`);
      const files = (await readdir(directory)).filter((file) => file.endsWith('.sql')).sort();
      return Promise.all(
        files.map(async (file) => {
          const text = await readFile(new URL(file, directory), 'utf8');
          const checksum = createHash('sha256').update(text).digest('hex');
          return { name: `${folder}/${file}`, text, checksum };
        }),
      );
    }),
  );
  return folders.flat();
}

/** The checksums recorded of the definitions applied; undefined before the table exists. */
async function recordedChecksums(db: Db): Promise<Map<string, string> | undefined> {
  const { rows: table } = await sql<{ found: boolean }>`
    select to_regclass('schema_definitions') is not null as found`.execute(db);
  if (!table[0]?.found) return undefined;
  const { rows } = await sql<{ name: string; checksum: string }>`
    select name, checksum from schema_definitions`.execute(db);
  return new Map(rows.map((row) => [row.name, row.checksum]));
}

/** Whether every definition is applied as it is now (false before the table exists). */
export async function definitionsUpToDate(db: Db, definitions: Definition[]): Promise<boolean> {
  const recorded = await recordedChecksums(db);
  return (
    !!recorded && definitions.every((definition) => recorded.get(definition.name) === definition.checksum)
  );
}

/**
 * Applies the definitions new or changed since they were last applied, and records them: their
 * names. Runs inside the migrations' transaction, after them. A file removed is forgotten (the
 * versioned migration that removed its function dropped it).
 */
export async function applyDefinitions(db: Db, definitions: Definition[]): Promise<string[]> {
  const recorded = (await recordedChecksums(db)) ?? new Map<string, string>();
  const changed = definitions.filter((definition) => recorded.get(definition.name) !== definition.checksum);
  if (changed.length > 0) await sql`set local check_function_bodies = off`.execute(db);
  for (const definition of changed) {
    for (const statement of sqlStatements(definition.text)) await sql.raw(statement).execute(db);
    await sql`insert into schema_definitions (name, checksum) values (${definition.name}, ${definition.checksum})
      on conflict (name) do update set checksum = excluded.checksum, applied_at = now()`.execute(db);
  }
  const gone = [...recorded.keys()].filter(
    (name) => !definitions.some((definition) => definition.name === name),
  );
  if (gone.length > 0) await sql`delete from schema_definitions where name = any(${gone})`.execute(db);
  return changed.map((definition) => definition.name);
}

/**
 * A file's statements, one at a time (an extended-protocol query, PGlite's included, takes one):
 * split at each `;` outside quotes, dollar quotes and comments.
 */
export function sqlStatements(text: string): string[] {
  const statements: string[] = [];
  let start = 0;
  let i = 0;
  const skipTo = (end: string, from: number) => {
    const at = text.indexOf(end, from);
    if (at < 0) throw new Error(`unterminated ${end} in a definition`);
    return at + end.length;
  };
  while (i < text.length) {
    const rest = text.slice(i, i + 2);
    const char = text[i]!;
    if (rest === '--') i = text.includes('\n', i) ? text.indexOf('\n', i) + 1 : text.length;
    else if (rest === '/*') i = skipTo('*/', i + 2);
    else if (char === "'" || char === '"') i = skipTo(char, i + 1);
    else if (char === '$') {
      const tag = /^\$[A-Za-z_]*\$/.exec(text.slice(i))?.[0];
      i = tag ? skipTo(tag, i + tag.length) : i + 1;
    } else if (char === ';') {
      statements.push(text.slice(start, i).trim());
      start = ++i;
    } else i++;
  }
  statements.push(text.slice(start).trim());
  // Comments alone are not statements.
  return statements.filter((statement) => statement.replace(/^--.*$/gm, '').trim() !== '');
}
