// One job for GET /v1/documents/{job}, with its result as PostgreSQL stores it (jsonb as text).
// A 65-page result is megabytes: parsing it into objects only to serialise it again cost more
// than everything else the request does, so it is never parsed on the read path.
import { sql } from 'kysely';
import type { Db } from '../../db/database.js';
import type { Principal } from '../identity/principal.js';
import { notFound } from '../../lib/errors.js';
import { SUMMARY_COLUMNS, artifactsOf } from './jobs.repository.js';

export async function getJobWithResultText(db: Db, p: Principal, jobId: string) {
  // The artifacts query is tenant-scoped by itself, so both go out at once.
  const [job, artifacts] = await Promise.all([
    db
      .selectFrom('jobs')
      .select(SUMMARY_COLUMNS)
      .select(sql<string | null>`result::text`.as('result_text'))
      .where('tenant_id', '=', p.tenantId)
      .where('id', '=', jobId)
      .executeTakeFirst(),
    artifactsOf(db, p.tenantId, [jobId]),
  ]);
  if (!job) throw notFound(`Job ${jobId}`);
  const { result_text: resultText, ...summary } = job;
  return { job: summary, artifacts: artifacts.get(jobId) ?? [], resultText };
}
