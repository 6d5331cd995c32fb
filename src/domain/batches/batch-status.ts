// A batch's counts and status, computed from its jobs (decisions.md "Batches"). Pure, so the rule
// is tested directly and shared by every path that changes a batch's jobs.
import type { BatchStatus, JobStatus } from '../../db/documents-schema.js';

export interface BatchCounts {
  total: number;
  queued: number;
  processing: number;
  completed: number;
  needs_review: number;
  rejected: number;
  failed: number;
}

export function emptyCounts(): BatchCounts {
  return { total: 0, queued: 0, processing: 0, completed: 0, needs_review: 0, rejected: 0, failed: 0 };
}

export function countJobs(rows: { status: JobStatus; n: number }[]): BatchCounts {
  const counts = emptyCounts();
  for (const { status, n } of rows) {
    counts[status] += n;
    counts.total += n;
  }
  return counts;
}

/**
 * queued: nothing has started; processing: some job is queued or running and some has started or
 * ended; then, once every job is terminal: cancelled (cancel was asked for), completed_with_errors
 * (some job failed or was rejected), or completed (needs_review counts as done: the pipeline
 * finished and a person takes over).
 */
export function batchStatus(counts: BatchCounts, cancelRequested: boolean): BatchStatus {
  const active = counts.queued + counts.processing;
  const ended = counts.total - active;
  if (active > 0) return counts.processing === 0 && ended === 0 ? 'queued' : 'processing';
  if (cancelRequested) return 'cancelled';
  if (counts.failed + counts.rejected > 0) return 'completed_with_errors';
  return 'completed';
}

export const isBatchTerminal = (status: BatchStatus) => status === 'completed' || status === 'completed_with_errors' || status === 'cancelled';
