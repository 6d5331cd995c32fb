// Template schemas keep their fields in the order they were written. As `jsonb` PostgreSQL stored
// an object's keys sorted by length, then bytes, so a schema written invoice_number, vendor_name,
// date, total came back date, total, vendor_name, invoice_number: in the API, the version history,
// every extraction's fields and the console's forms. `json` keeps the text as sent. Nothing queries
// inside these columns. Rows already stored keep the sorted order they were given.
import { type Kysely, sql } from 'kysely';

/** Columns holding a JSON Schema, or objects keyed by its fields (examples, expected outputs). */
const COLUMNS: [table: string, column: string][] = [
  ['templates', 'json_schema'],
  ['template_versions', 'snapshot'],
  ['template_drafts', 'json_schema'],
  ['template_drafts', 'field_examples'],
  ['forge_jobs', 'expected_outputs'],
  ['forge_iterations', 'candidate'],
];

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE templates DROP CONSTRAINT templates_json_schema_check`.execute(db);
  for (const [table, column] of COLUMNS) await alterType(db, table, column, 'json');
  await sql`ALTER TABLE templates ADD CONSTRAINT templates_json_schema_check CHECK (json_typeof(json_schema) = 'object')`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE templates DROP CONSTRAINT templates_json_schema_check`.execute(db);
  for (const [table, column] of COLUMNS) await alterType(db, table, column, 'jsonb');
  await sql`ALTER TABLE templates ADD CONSTRAINT templates_json_schema_check CHECK (jsonb_typeof(json_schema) = 'object')`.execute(db);
}

async function alterType(db: Kysely<unknown>, table: string, column: string, type: 'json' | 'jsonb'): Promise<void> {
  const t = sql.id(table);
  const c = sql.id(column);
  // field_examples has a jsonb default, which must change type with its column.
  const defaulted = table === 'template_drafts' && column === 'field_examples';
  if (defaulted) await sql`ALTER TABLE ${t} ALTER COLUMN ${c} DROP DEFAULT`.execute(db);
  await sql`ALTER TABLE ${t} ALTER COLUMN ${c} TYPE ${sql.raw(type)} USING ${c}::text::${sql.raw(type)}`.execute(db);
  if (defaulted) await sql`ALTER TABLE ${t} ALTER COLUMN ${c} SET DEFAULT ${sql.raw(`'{}'::${type}`)}`.execute(db);
}
