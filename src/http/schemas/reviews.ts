// Reviews: ReviewSummary exactly as interface.md lists it, and ReviewDetailResponse {review, job}.
import { Type } from 'typebox';
import type { ReviewRow } from '../../domain/reviews/reviews.repository.js';
import { CreatedRange, FreeObject, Nullable, NullableTimestamp, PageQuery, StringEnum, Timestamp } from './common.js';

export const REVIEW_STATUSES = ['pending', 'in_review', 'approved', 'overridden', 'reprocessed', 'closed_by_delete'] as const;

export const ReviewSummary = Type.Object(
  {
    review_id: Type.String(),
    job_id: Type.String(),
    job_status: Type.String(),
    batch_id: Nullable(Type.String()),
    original_filename: Nullable(Type.String()),
    status: StringEnum(REVIEW_STATUSES),
    reasons: Type.Array(Type.String()),
    created_at: Timestamp,
    updated_at: Timestamp,
    resolved_at: NullableTimestamp,
    resolved_by: Nullable(Type.String()),
    resolution: Nullable(Type.String()),
    resolution_note: Nullable(Type.String()),
  },
  { description: 'ReviewSummary (interface.md)' },
);

export const ReviewDetailResponse = Type.Object({ review: ReviewSummary, job: FreeObject }, { description: 'ReviewDetailResponse: the review and its job' });

export const ReviewParams = Type.Object({ review_id: Type.String({ maxLength: 64 }) });

export const ListReviewsQuery = Type.Object({
  ...PageQuery,
  status: Type.Optional(StringEnum(REVIEW_STATUSES)),
  job_id: Type.Optional(Type.String({ maxLength: 64 })),
  batch_id: Type.Optional(Type.String({ maxLength: 64 })),
  ...CreatedRange,
});

export function presentReview(r: ReviewRow) {
  return {
    review_id: r.id,
    job_id: r.job_id,
    job_status: r.job_status,
    batch_id: r.batch_id,
    original_filename: r.original_filename,
    status: r.status,
    reasons: r.reasons,
    created_at: r.created_at,
    updated_at: r.updated_at,
    resolved_at: r.resolved_at,
    resolved_by: r.resolved_by,
    resolution: r.resolution,
    resolution_note: r.resolution_note,
  };
}
