// /v1/reviews: the review loop over jobs that ended needs_review. Rules live in
// src/domain/reviews/; these handlers validate, call one function and present.
import { approveReview, listReviewPage, overrideReview, reprocessReview, reviewDetail } from '../../domain/reviews/reviews.service.js';
import { type RouteModule, caller } from '../context.js';
import { ErrorResponse, Page } from '../schemas/common.js';
import { presentJob } from '../schemas/documents.js';
import { ReviewApprove, ReviewOverride, ReviewReprocess } from '../schemas/job-requests.js';
import { ListReviewsQuery, ReviewDetailResponse, ReviewParams, ReviewSummary, presentReview } from '../schemas/reviews.js';
import { optionalBody } from './documents.routes.js';

const tags = ['reviews'];
const config = { permission: 'member' as const };
const errors = { 404: ErrorResponse, 409: ErrorResponse };

type Detail = Awaited<ReturnType<typeof reviewDetail>>;
const present = ({ review, job, artifacts }: Detail) => ({ review: presentReview(review), job: presentJob(job, artifacts) });

export const reviewsRoutes: RouteModule = (app, ctx) => {
  app.get(
    '/v1/reviews',
    {
      config,
      schema: { tags, operationId: 'reviews.list', summary: 'List reviews, newest first', querystring: ListReviewsQuery, response: { 200: Page(ReviewSummary) } },
    },
    async (request) => {
      const { limit, cursor, ...filters } = request.query;
      const page = await listReviewPage(ctx.db, caller(request), filters, { ...(limit ? { limit } : {}), ...(cursor ? { cursor } : {}) });
      return { items: page.items.map(presentReview), next_cursor: page.next_cursor };
    },
  );

  app.get(
    '/v1/reviews/:review_id',
    {
      config,
      schema: {
        tags,
        operationId: 'reviews.get',
        summary: 'A review with its job; opening a pending review moves it to in_review',
        params: ReviewParams,
        response: { 200: ReviewDetailResponse, ...errors },
      },
    },
    async (request) => present(await reviewDetail(ctx.db, caller(request), request.params.review_id, { open: true })),
  );

  app.post(
    '/v1/reviews/:review_id/approve',
    {
      config,
      preValidation: optionalBody,
      schema: { tags, operationId: 'reviews.approve', summary: 'Accept the result as it is (job → completed)', params: ReviewParams, body: ReviewApprove, response: { 200: ReviewDetailResponse, ...errors } },
    },
    async (request) => {
      const body = request.body as { note?: string | null };
      return present(await approveReview(ctx.db, caller(request), request.params.review_id, body.note ?? null));
    },
  );

  app.post(
    '/v1/reviews/:review_id/override',
    {
      config,
      schema: {
        tags,
        operationId: 'reviews.override',
        summary: 'Apply a JSON merge patch (RFC 7386) to extraction.data, validate again and complete the job',
        params: ReviewParams,
        body: ReviewOverride,
        response: { 200: ReviewDetailResponse, ...errors },
      },
    },
    async (request) => {
      const body = request.body as { patch: Record<string, unknown>; note?: string | null };
      return present(await overrideReview(ctx.db, caller(request), request.params.review_id, body.patch, body.note ?? null));
    },
  );

  app.post(
    '/v1/reviews/:review_id/reprocess',
    {
      config,
      preValidation: optionalBody,
      schema: {
        tags,
        operationId: 'reviews.reprocess',
        summary: 'Run the job again, optionally with another template (review → reprocessed)',
        params: ReviewParams,
        body: ReviewReprocess,
        response: { 200: ReviewDetailResponse, ...errors },
      },
    },
    async (request) => {
      const body = request.body as { template_id?: string | null };
      return present(await reprocessReview(ctx.db, caller(request), request.params.review_id, body.template_id ?? null));
    },
  );
};
