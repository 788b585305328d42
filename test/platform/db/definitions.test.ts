// The database's code in view (src/platform/db/definitions.ts): every function and trigger of a
// migrated database has one .sql definition, the database holds what that file says, a database
// the migrations alone made (as main made them before the definitions moved) upgrades in place to
// what a fresh one holds, and a file is applied again exactly when it changes. On PGlite and on the Postgres server.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';
import { FileMigrationProvider, Kysely, sql, type MigrationProvider } from 'kysely';
import {
  applyDefinitions,
  loadDefinitions,
  sqlStatements,
  type Definition,
} from '../../../src/platform/db/definitions.js';
import { migrateToLatest } from '../../../src/platform/db/migrate.js';
import { openDatabase } from '../../../src/platform/db/database.js';
import { PGliteDialect } from '../../../src/platform/db/pglite-dialect.js';
import type { Database, Db } from '../../../src/platform/db/schema.js';
import {
  createTestDatabase,
  emptyDatabaseOnServer,
  serverUrl,
  type TestDatabase,
} from '../../helpers/database.js';

/** The last migration before functions and triggers moved to their .sql files. */
const lastBeforeDefinitions = '2026-11-28T02-00-00_webhook-lanes';
/** The migration that records the definitions: the upgrade main made, and no later migration. */
const definitionsMigration = '2026-11-28T03-00-00_schema-definitions';

/** Every function's definition and every trigger's, by name, as the database prints them. */
async function databaseCode(db: Db): Promise<Map<string, string>> {
  const { rows } = await sql<{ name: string; definition: string }>`
    select 'function ' || p.proname || '(' || pg_get_function_identity_arguments(p.oid) || ')' as name,
           pg_get_functiondef(p.oid) as definition
    from pg_proc p join pg_namespace n on n.oid = p.pronamespace where n.nspname = 'public'
    union all
    select 'trigger ' || t.tgname || ' on ' || t.tgrelid::regclass::text, pg_get_triggerdef(t.oid)
    from pg_trigger t where not t.tgisinternal`.execute(db);
  return new Map(rows.map((row) => [row.name, row.definition]));
}

/** A database with nothing in it, not even migrations. */
async function emptyDatabase(): Promise<{ db: Db; close(): Promise<void> }> {
  if (!serverUrl) {
    const pglite = await PGlite.create('memory://');
    const db = new Kysely<Database>({ dialect: new PGliteDialect(pglite) });
    return { db, close: async () => (await db.destroy(), await pglite.close()) };
  }
  const empty = await emptyDatabaseOnServer();
  const opened = await openDatabase({ databaseUrl: empty.url, pgliteDir: 'memory://' });
  return { db: opened.db, close: async () => (await opened.close(), await empty.drop()) };
}

/**
 * migrations/ up to and including `last`, as a provider: compiled (dist/migrations, which `npm
 * test` builds first) when this file runs bundled, where a .ts migration cannot load.
 */
async function migrationsUpTo(last: string): Promise<MigrationProvider> {
  const from = (folder: string) =>
    new FileMigrationProvider({
      fs,
      path,
      migrationFolder: fileURLToPath(new URL(folder, import.meta.url)),
    }).getMigrations();
  const all = await from('../../../migrations').catch((error: unknown) => {
    if ((error as { code?: unknown }).code !== 'ERR_UNKNOWN_FILE_EXTENSION') throw error;
    return from('../../../dist/migrations');
  });
  return {
    getMigrations: async () => Object.fromEntries(Object.entries(all).filter(([name]) => name <= last)),
  };
}

let database: TestDatabase;
let definitions: Definition[];
before(async () => {
  database = await createTestDatabase();
  definitions = await loadDefinitions();
});
after(() => database?.close());

describe('every function and trigger has one current definition', () => {
  test('the migrated database holds a function or trigger exactly where one file defines it', async () => {
    const defined = new Map<string, string>();
    for (const { name, text } of definitions) {
      const found = [
        ...[...text.matchAll(/^CREATE OR REPLACE FUNCTION public\.(\w+)\(/gm)].map((m) => `function ${m[1]}`),
        ...[...text.matchAll(/^CREATE (?:OR REPLACE |CONSTRAINT )?TRIGGER (\w+) .* ON public\.(\w+) /gm)].map(
          (m) => `trigger ${m[1]} on ${m[2]}`,
        ),
      ];
      assert.ok(found.length > 0, `${name} defines something`);
      for (const what of found) {
        assert.equal(defined.get(what), undefined, `${what} is defined in ${defined.get(what)} and ${name}`);
        defined.set(what, name);
      }
    }
    const inDatabase = [...(await databaseCode(database.db)).keys()].map((name) =>
      name.replace(/\(.*\)$/, ''),
    );
    assert.deepEqual(inDatabase.sort(), [...defined.keys()].sort());
  });

  test('what the database holds is what the files say: applying every file again changes nothing', async () => {
    const before = await databaseCode(database.db);
    await database.db.transaction().execute(async (trx) => {
      await sql`delete from schema_definitions`.execute(trx);
      assert.equal((await applyDefinitions(trx, definitions)).length, definitions.length);
      assert.deepEqual(await databaseCode(trx), before);
    });
  });

  test('a file is split into its statements at the semicolons outside quotes and comments', () => {
    assert.deepEqual(
      sqlStatements(`-- a comment; still a comment
create function f() returns text language plpgsql as $body$ begin return 'a;b' || $$;$$; end $body$;
/* a; block */ create trigger "t;" after insert on x for each row execute function f();
-- the end;
`),
      [
        `-- a comment; still a comment\ncreate function f() returns text language plpgsql as $body$ begin return 'a;b' || $$;$$; end $body$`,
        `/* a; block */ create trigger "t;" after insert on x for each row execute function f()`,
      ],
    );
  });
});

describe('upgrading in place', () => {
  test('a database the migrations alone made upgrades to the definitions, then to the latest, as a fresh one', async () => {
    const made = await emptyDatabase();
    try {
      const history = await migrationsUpTo(lastBeforeDefinitions);
      await migrateToLatest(made.db, history, { definitions: false });
      const everything = await migrationsUpTo('9999');
      const later = Object.keys(await everything.getMigrations())
        .filter((name) => name > lastBeforeDefinitions)
        .sort();
      const applied = await migrateToLatest(made.db, everything);
      // The migration that records the definitions and every one after it, then every definition.
      assert.deepEqual(
        applied.filter((name) => !name.endsWith('.sql')),
        later,
      );
      assert.equal(later[0], definitionsMigration);
      assert.deepEqual(
        applied.filter((name) => name.endsWith('.sql')),
        definitions.map((definition) => definition.name),
      );
      assert.deepEqual(
        await databaseCode(made.db),
        await databaseCode(database.db),
        'as a fresh database holds them',
      );
      assert.deepEqual(await migrateToLatest(made.db, everything), [], 'then nothing left to do');
    } finally {
      await made.close();
    }
  });

  test('a changed file is applied again, alone; one removed is forgotten', async () => {
    const [first, second, ...rest] = definitions;
    const changed: Definition = {
      ...first!,
      text: first!.text.replace(/\$function\$;/, '$function$;\n-- changed'),
      checksum: `${first!.checksum}-changed`,
    };
    await database.db
      .transaction()
      .execute(async (trx) => {
        assert.deepEqual(await applyDefinitions(trx, [changed, second!, ...rest]), [first!.name]);
        assert.deepEqual(await applyDefinitions(trx, [changed, ...rest]), []);
        const { rows } = await sql<{ name: string }>`select name from schema_definitions`.execute(trx);
        assert.ok(!rows.some((row) => row.name === second!.name), 'the removed file is no longer recorded');
        throw new Rollback(); // the test database stays as the files say
      })
      .catch((error: unknown) => {
        if (!(error instanceof Rollback)) throw error;
      });
  });
});

class Rollback extends Error {}
