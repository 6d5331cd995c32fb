// SQL for exemplars: one fingerprint per job, under the template the job completed with.
import { sql } from 'kysely';
import type { Db, Tx } from '../../db/database.js';
import type { ExemplarRow } from '../../db/classification-schema.js';

/** Records (or moves) the job's exemplar: a job stands for exactly one template at a time. */
export async function upsertExemplar(db: Db | Tx, tenantId: string, jobId: string, templateId: string, fingerprint: object, source: string): Promise<void> {
  await db
    .insertInto('template_exemplars')
    .values({ job_id: jobId, tenant_id: tenantId, template_id: templateId, fingerprint: JSON.stringify(fingerprint), source })
    .onConflict((oc) =>
      oc.column('job_id').doUpdateSet({ template_id: templateId, fingerprint: JSON.stringify(fingerprint), source, updated_at: sql`now()` }).where('template_exemplars.tenant_id', '=', tenantId),
    )
    .execute();
}

export async function deleteExemplar(db: Db | Tx, tenantId: string, jobId: string): Promise<void> {
  await db.deleteFrom('template_exemplars').where('tenant_id', '=', tenantId).where('job_id', '=', jobId).execute();
}

/** The newest `perTemplate` exemplars of each of the given templates. */
export async function exemplarsOf(db: Db, tenantId: string, templateIds: string[], perTemplate: number): Promise<ExemplarRow[]> {
  if (!templateIds.length) return [];
  const { rows } = await sql<ExemplarRow>`
    SELECT * FROM (
      SELECT e.*, row_number() OVER (PARTITION BY template_id ORDER BY updated_at DESC, job_id DESC) AS n
        FROM template_exemplars e
       WHERE tenant_id = ${tenantId} AND template_id IN (${sql.join(templateIds)})) ranked
     WHERE n <= ${perTemplate}`.execute(db);
  return rows;
}

export async function countExemplars(db: Db, tenantId: string, templateId: string): Promise<number> {
  const row = await db.selectFrom('template_exemplars').select((eb) => eb.fn.countAll<string>().as('n')).where('tenant_id', '=', tenantId).where('template_id', '=', templateId).executeTakeFirst();
  return Number(row?.n ?? 0);
}
