// Runs the frozen migrations in migrations/ up to the latest. Used at start-up, by `npm run migrate`
// and by the test harness.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { FileMigrationProvider, Migrator, sql } from 'kysely';
import { packageFile } from '../paths.js';
import type { Db } from './schema.js';

const migrationFolder = fileURLToPath(packageFile('migrations', 'migrations'));

export async function migrateToLatest(db: Db): Promise<string[]> {
  // The common case at start-up, answered without loading every migration module (~100 ms).
  if (await isUpToDate(db)) return [];
  const migrator = new Migrator({ db, provider: new FileMigrationProvider({ fs, path, migrationFolder }) });
  const { error, results = [] } = await migrator.migrateToLatest();
  if (error) {
    const failed = results.find((r) => r.status === 'Error')?.migrationName ?? 'unknown';
    throw new Error(`Migration ${failed} failed`, { cause: error });
  }
  return results.filter((r) => r.status === 'Success').map((r) => r.migrationName);
}

/** Whether every migration in the folder is recorded as applied (false when nothing is, yet). */
async function isUpToDate(db: Db): Promise<boolean> {
  const names = (await fs.readdir(migrationFolder))
    .filter((file) => /\.(js|ts)$/.test(file) && !file.endsWith('.d.ts'))
    .map((file) => file.replace(/\.(js|ts)$/, ''));
  try {
    const { rows } = await sql<{ name: string }>`select name from kysely_migration`.execute(db);
    const applied = new Set(rows.map((row) => row.name));
    return names.every((name) => applied.has(name));
  } catch {
    return false; // no migration table yet
  }
}
