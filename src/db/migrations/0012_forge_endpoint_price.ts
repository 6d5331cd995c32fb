// A forge endpoint's price (US dollars per million input and output tokens), as vlm and judge
// endpoints have: what turns a forge iteration's tokens into the dollars that max_dollars and
// forge_monthly_dollar_quota limit. Null: the endpoint's calls are recorded at $0.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE forge_endpoints ADD COLUMN price_per_mtok jsonb`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE forge_endpoints DROP COLUMN price_per_mtok`.execute(db);
}
