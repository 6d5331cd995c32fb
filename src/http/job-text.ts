// The job record as JSON text: the summary fields serialised by the response schema (the same
// code Fastify would run), then its deliveries, then the stored result text spliced in unchanged.
import type { FastifyReply } from 'fastify';
import type { Artifact } from '../db/documents-schema.js';
import type { JobSummary } from '../domain/documents/jobs.repository.js';
import { JobListItem, presentJobSummary } from './schemas/documents.js';

export function jobRecordText(
  reply: FastifyReply,
  job: JobSummary,
  artifacts: Artifact[],
  deliveries: unknown[],
  reviewHistory: Record<string, unknown>[],
  resultText: string | null,
): string {
  const head = reply.compileSerializationSchema(JobListItem as unknown as Record<string, unknown>)(presentJobSummary(job, artifacts));
  const history = JSON.stringify(reviewHistory);
  return `${head.slice(0, head.lastIndexOf('}'))},"deliveries":${JSON.stringify(deliveries)},"review_history":${history},"result":${resultWithHistory(resultText, reviewHistory, history)}}`;
}

/** The result text with `review_history` added as its last key, as presentJob adds it to a parsed result. */
function resultWithHistory(resultText: string | null, reviewHistory: unknown[], history: string): string {
  if (resultText === null) return 'null';
  if (!reviewHistory.length) return resultText;
  const end = resultText.lastIndexOf('}');
  const empty = resultText.slice(resultText.indexOf('{') + 1, end).trim() === '';
  return `${resultText.slice(0, end)}${empty ? '' : ','}"review_history":${history}}`;
}
