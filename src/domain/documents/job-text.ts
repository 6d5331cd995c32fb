// One job for GET /v1/documents/{job}, with its result as PostgreSQL stores it (json: the text as written).
// A 65-page result is megabytes: parsing it into objects only to serialise it again cost more
// than everything else the request does, so it is never parsed on the read path.
// The job, its artifacts and its deliveries come back in one statement: the read path is the
// most frequent request, and each extra query is another round trip and pool checkout.
import { sql } from 'kysely';
import { jsonArrayFrom } from 'kysely/helpers/postgres';
import type { Artifact } from '../../db/documents-schema.js';
import type { Delivery } from '../../db/connections-schema.js';
import type { Db } from '../../db/database.js';
import type { Principal } from '../identity/principal.js';
import { notFound } from '../../lib/errors.js';
import { ReusableQuery } from '../../db/reusable-query.js';
import { ARTIFACT_ORDER, SUMMARY_COLUMNS } from './jobs.repository.js';

/** Rows aggregated as JSON carry timestamps as text; these fields become Dates again. */
const ARTIFACT_TIMESTAMPS = ['created_at'] as const;
const DELIVERY_TIMESTAMPS = ['run_after', 'lease_expires_at', 'delivered_at', 'created_at', 'updated_at'] as const;

function reviveTimestamps<T>(rows: unknown[], fields: readonly string[]): T[] {
  for (const row of rows as Record<string, unknown>[]) {
    for (const f of fields) if (typeof row[f] === 'string') row[f] = new Date(row[f] as string);
  }
  return rows as T[];
}

const jobRecordQuery = new ReusableQuery((db: Db, value: (name: 'tenantId' | 'jobId') => string) =>
  db
    .selectFrom('jobs')
    .select(SUMMARY_COLUMNS)
    .select('review_history')
    .select(sql<string | null>`result::text`.as('result_text'))
    .select((eb) => [
      // Same order as artifactsOf and deliveriesOfJob.
      jsonArrayFrom(
        eb
          .selectFrom('artifacts')
          .selectAll()
          .where('artifacts.tenant_id', '=', value('tenantId'))
          .whereRef('artifacts.job_id', '=', 'jobs.id')
          .orderBy(ARTIFACT_ORDER),
      ).as('artifact_rows'),
      jsonArrayFrom(
        eb
          .selectFrom('deliveries')
          .selectAll()
          .where('deliveries.tenant_id', '=', value('tenantId'))
          .whereRef('deliveries.job_id', '=', 'jobs.id')
          .where('deliveries.kind', '=', 'job')
          .orderBy('deliveries.id'),
      ).as('delivery_rows'),
    ])
    .where('tenant_id', '=', value('tenantId'))
    .where('id', '=', value('jobId')),
);

export async function getJobWithResultText(db: Db, p: Principal, jobId: string) {
  const [row] = await jobRecordQuery.execute(db, { tenantId: p.tenantId, jobId });
  if (!row) throw notFound(`Job ${jobId}`);
  const { result_text: resultText, artifact_rows, delivery_rows, review_history: reviewHistory, ...job } = row;
  return {
    job,
    reviewHistory,
    artifacts: reviveTimestamps<Artifact>(artifact_rows, ARTIFACT_TIMESTAMPS),
    deliveries: reviveTimestamps<Delivery>(delivery_rows, DELIVERY_TIMESTAMPS),
    resultText,
  };
}
