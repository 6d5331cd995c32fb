// The job record as JSON text: the summary fields serialised by the response schema (the same
// code Fastify would run), then its deliveries, then the stored result text spliced in unchanged.
import type { FastifyReply } from 'fastify';
import type { Artifact } from '../db/documents-schema.js';
import type { JobSummary } from '../domain/documents/jobs.repository.js';
import { JobListItem, presentJobSummary } from './schemas/documents.js';

export function jobRecordText(reply: FastifyReply, job: JobSummary, artifacts: Artifact[], deliveries: unknown[], resultText: string | null): string {
  const head = reply.compileSerializationSchema(JobListItem as unknown as Record<string, unknown>)(presentJobSummary(job, artifacts));
  return `${head.slice(0, head.lastIndexOf('}'))},"deliveries":${JSON.stringify(deliveries)},"result":${resultText ?? 'null'}}`;
}
