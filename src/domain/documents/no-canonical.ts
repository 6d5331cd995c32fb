// Why a job has no canonical output to read, and what to do, for the operations that read a
// finished job's document (forge samples, drafts from jobs, template tests, classify by job_id).
import type { Job } from '../../db/documents-schema.js';
import { conflict } from '../../lib/errors.js';

/** 409 job_has_no_canonical: `what` names the job as the request does ("Sample job X (sample_job_ids[0])"). */
export function noCanonicalOutput(job: Pick<Job, 'status' | 'failure_code'>, what: string, instead = '') {
  if (job.status === 'failed') {
    return conflict('job_has_no_canonical', `${what} failed${job.failure_code ? ` (${job.failure_code})` : ''}, so it has no document to read. Leave it out${instead}.`);
  }
  return conflict('job_has_no_canonical', `${what} has no canonical output yet (status ${job.status}). Wait until it has finished${instead}.`);
}
