import { describe, expect, it } from 'vitest';
import { batchStatus, countJobs, emptyCounts } from './batch-status.js';

const counts = (c: Partial<ReturnType<typeof emptyCounts>>) => {
  const all = { ...emptyCounts(), ...c };
  all.total = all.queued + all.processing + all.completed + all.needs_review + all.rejected + all.failed;
  return all;
};

describe('batch status', () => {
  it('counts jobs by status', () => {
    expect(countJobs([{ status: 'queued', n: 2 }, { status: 'failed', n: 1 }])).toEqual({ ...emptyCounts(), total: 3, queued: 2, failed: 1 });
  });

  it('is queued until a job starts, processing while any job is open', () => {
    expect(batchStatus(counts({ queued: 3 }), false)).toBe('queued');
    expect(batchStatus(counts({ queued: 2, processing: 1 }), false)).toBe('processing');
    expect(batchStatus(counts({ queued: 2, completed: 1 }), false)).toBe('processing');
    expect(batchStatus(counts({ queued: 1, failed: 1 }), true)).toBe('processing');
  });

  it('ends completed, completed_with_errors or cancelled', () => {
    expect(batchStatus(counts({ completed: 2, needs_review: 1 }), false)).toBe('completed');
    expect(batchStatus(counts({ completed: 2, rejected: 1 }), false)).toBe('completed_with_errors');
    expect(batchStatus(counts({ completed: 2, failed: 1 }), false)).toBe('completed_with_errors');
    expect(batchStatus(counts({ completed: 1, failed: 1 }), true)).toBe('cancelled');
  });
});
