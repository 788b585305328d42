// The schema snapshot (migrations/schema.sql): what a freshly migrated database holds, on one page,
// in a stable order (Rails' structure.sql). Every table with its columns, constraints, indexes and
// triggers, then the sequences of their own and the functions. Read from the catalog, so PGlite can
// make it on a machine with no Postgres server; `npm run schema` writes it, `npm run check` fails
// when it is stale (src/cli/schema.ts).
import { sql } from 'kysely';
import type { Db } from './schema.js';

const header = `-- The schema a fresh \`npm run migrate\` leaves (tables, constraints, indexes, triggers, functions).
-- Made by \`npm run schema\` on embedded PostgreSQL; \`npm run check\` fails when it is stale.
-- Read it here; change it with a migration, or a function's .sql file (docs/architecture.md).`;

export async function schemaSnapshot(db: Db): Promise<string> {
  const { rows: columns } = await sql<{
    table: string;
    name: string;
    type: string;
    not_null: boolean;
    default: string | null;
    identity: string;
    generated: string;
  }>`
    select c.relname as table, a.attname as name, format_type(a.atttypid, a.atttypmod) as type,
           a.attnotnull as not_null, pg_get_expr(d.adbin, d.adrelid) as default,
           a.attidentity as identity, a.attgenerated as generated
    from pg_class c
    join pg_namespace n on n.oid = c.relnamespace
    join pg_attribute a on a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped
    left join pg_attrdef d on d.adrelid = c.oid and d.adnum = a.attnum
    where n.nspname = 'public' and c.relkind in ('r', 'p')
    order by c.relname, a.attnum`.execute(db);
  // Not-null constraints are the columns' own (PostgreSQL 18 also lists them as constraints).
  const { rows: constraints } = await sql<{ table: string; name: string; definition: string }>`
    select c.conrelid::regclass::text as table, c.conname as name, pg_get_constraintdef(c.oid) as definition
    from pg_constraint c join pg_namespace n on n.oid = c.connamespace
    where n.nspname = 'public' and c.conrelid <> 0 and c.contype <> 'n'
    order by 1, 2`.execute(db);
  const { rows: indexes } = await sql<{ table: string; definition: string }>`
    select t.relname as table, pg_get_indexdef(i.indexrelid) as definition
    from pg_index i
    join pg_class t on t.oid = i.indrelid
    join pg_class x on x.oid = i.indexrelid
    join pg_namespace n on n.oid = t.relnamespace
    where n.nspname = 'public' and not exists (select 1 from pg_constraint c where c.conindid = i.indexrelid)
    order by t.relname, x.relname`.execute(db);
  const { rows: triggers } = await sql<{ table: string; definition: string }>`
    select c.relname as table, pg_get_triggerdef(t.oid) as definition
    from pg_trigger t join pg_class c on c.oid = t.tgrelid join pg_namespace n on n.oid = c.relnamespace
    where n.nspname = 'public' and not t.tgisinternal
    order by c.relname, t.tgname`.execute(db);
  // Sequences of their own: a serial's or a standalone one (an identity column's is the column's).
  const { rows: sequences } = await sql<{ definition: string }>`
    select format('CREATE SEQUENCE %s AS %s START %s INCREMENT %s;', s.sequencename, s.data_type,
                  s.start_value, s.increment_by) as definition
    from pg_sequences s
    where s.schemaname = 'public' and not exists (
      select 1 from pg_depend d
      where d.objid = format('%I.%I', s.schemaname, s.sequencename)::regclass and d.deptype = 'i')
    order by s.sequencename`.execute(db);
  const { rows: functions } = await sql<{ definition: string }>`
    select pg_get_functiondef(p.oid) as definition
    from pg_proc p join pg_namespace n on n.oid = p.pronamespace
    where n.nspname = 'public'
    order by p.proname, pg_get_function_identity_arguments(p.oid)`.execute(db);

  const byTable = <T extends { table: string }>(rows: T[]) => {
    const map = new Map<string, T[]>();
    for (const row of rows) map.set(row.table, [...(map.get(row.table) ?? []), row]);
    return map;
  };
  const tableConstraints = byTable(constraints);
  const tableIndexes = byTable(indexes);
  const tableTriggers = byTable(triggers);
  const sections: string[] = [header];
  for (const [table, tableColumns] of byTable(columns)) {
    const lines = tableColumns.map((column) => `  ${column.name} ${column.type}${columnTail(column)}`);
    for (const constraint of tableConstraints.get(table) ?? []) {
      lines.push(`  CONSTRAINT ${constraint.name} ${constraint.definition}`);
    }
    const statements = [`CREATE TABLE ${table} (\n${lines.join(',\n')}\n);`];
    for (const index of tableIndexes.get(table) ?? []) statements.push(`${index.definition};`);
    for (const trigger of tableTriggers.get(table) ?? []) statements.push(`${trigger.definition};`);
    sections.push(statements.join('\n'));
  }
  if (sequences.length > 0) sections.push(sequences.map((row) => row.definition).join('\n'));
  for (const fn of functions) sections.push(`${fn.definition.trimEnd()};`);
  return `${sections.join('\n\n')}\n`;
}

function columnTail(column: {
  not_null: boolean;
  default: string | null;
  identity: string;
  generated: string;
}) {
  if (column.generated === 's') {
    return ` GENERATED ALWAYS AS (${column.default}) STORED${column.not_null ? ' NOT NULL' : ''}`;
  }
  const identity =
    column.identity === 'a'
      ? ' GENERATED ALWAYS AS IDENTITY'
      : column.identity === 'd'
        ? ' GENERATED BY DEFAULT AS IDENTITY'
        : '';
  return `${column.not_null ? ' NOT NULL' : ''}${identity}${column.default === null || identity ? '' : ` DEFAULT ${column.default}`}`;
}
