// Errors are data: a stable code from one catalogue, a sentence a person can act on, and details
// where a client needs more (validation items, when to retry). Every layer throws these; none
// speaks of transports. The HTTP layer alone turns a code's kind into a status
// (http/error-handler.ts), and the queue copies job failure codes onto the failed job.

import { namesSecret, redact } from './redact.js';

/** What kind of fault a code names; the HTTP layer answers each kind with one status. */
export type ErrorKind =
  /** The request breaks a business rule. */
  | 'rule'
  /** No valid credential came with the request. */
  | 'unauthenticated'
  /** A known caller is not allowed this. */
  | 'forbidden'
  /** Missing, or another tenant's (never reveal which). */
  | 'not_found'
  /** The resource is in the wrong state, or the name is taken. */
  | 'conflict'
  | 'too_large'
  | 'unsupported_media'
  /** Request fields fail validation (the details carry one item per field). */
  | 'invalid'
  | 'rate_limited'
  | 'unavailable'
  /** How a job ended: recorded on the job, never a request's answer. */
  | 'job_failure'
  /** Not the caller's doing. */
  | 'internal';

/** Every code Quire answers or records, with its kind (docs/api.md lists them). */
export const ERROR_CODES = {
  invalid_password: 'rule',
  invalid_token: 'rule',
  not_a_session: 'rule',
  template_requires_extraction: 'rule',
  connection_not_destination: 'rule',
  malformed_upload: 'rule',

  unauthorized: 'unauthenticated',

  cannot_modify_self: 'forbidden',
  forge_disabled: 'forbidden',
  insufficient_role: 'forbidden',
  platform_admin_protected: 'forbidden',
  platform_controlled: 'forbidden',
  role_exceeds_owner: 'forbidden',
  user_required: 'forbidden',
  tenant_infra_overrides_disabled: 'forbidden',

  not_found: 'not_found',

  already_admin: 'conflict',
  already_member: 'conflict',
  batch_finished: 'conflict',
  draft_not_pending: 'conflict',
  duplicate_name: 'conflict',
  email_taken: 'conflict',
  endpoint_name_taken: 'conflict',
  forge_job_finished: 'conflict',
  forge_job_not_promotable: 'conflict',
  idempotency_key_reused: 'conflict',
  invitation_not_pending: 'conflict',
  job_deleted: 'conflict',
  job_finished: 'conflict',
  job_has_no_canonical: 'conflict',
  job_not_deleted: 'conflict',
  job_not_in_review: 'conflict',
  job_not_retryable: 'conflict',
  job_not_terminal: 'conflict',
  key_expired: 'conflict',
  key_revoked: 'conflict',
  key_rotated: 'conflict',
  no_canonical_output: 'conflict',
  no_extraction: 'conflict',
  restore_window_passed: 'conflict',
  review_resolved: 'conflict',
  session_revoked: 'conflict',
  template_already_active: 'conflict',
  template_already_inactive: 'conflict',
  template_deleted: 'conflict',
  template_in_use: 'conflict',
  template_name_taken: 'conflict',
  tenant_active: 'conflict',
  tenant_exists: 'conflict',
  tenant_hosts_platform_admin: 'conflict',
  tenant_suspended: 'conflict',
  user_not_active: 'conflict',
  user_not_invited: 'conflict',
  user_not_suspended: 'conflict',

  payload_too_large: 'too_large',

  unsupported_media_type: 'unsupported_media',
  // Also a job failure code; answered 415 when a synchronous test meets it.
  unsupported_format: 'unsupported_media',

  request_invalid: 'invalid',

  account_locked: 'rate_limited',
  forge_quota_exceeded: 'rate_limited',
  rate_limited: 'rate_limited',

  database_unavailable: 'unavailable',
  migrations_pending: 'unavailable',

  corrupt_document: 'job_failure',
  encrypted_document: 'job_failure',
  empty_document: 'job_failure',
  page_cap_exceeded: 'job_failure',
  invalid_page_range: 'job_failure',
  resource_limit: 'job_failure',
  ocr_failed: 'job_failure',
  ocr_language_unavailable: 'job_failure',
  ocr_image_unreadable: 'job_failure',
  ocr_engine_failed: 'job_failure',
  model_error: 'job_failure',
  template_not_found: 'job_failure',
  timeout: 'job_failure',
  cancelled: 'job_failure',
  worker_lost: 'job_failure',

  internal_error: 'internal',
  blob_not_found: 'internal',
} as const satisfies Record<string, ErrorKind>;

export type ErrorCode = keyof typeof ERROR_CODES;
/** The codes of one kind, so a helper can only be given a code that means what it says. */
export type CodeOf<K extends ErrorKind> = { [C in ErrorCode]: (typeof ERROR_CODES)[C] extends K ? C : never }[ErrorCode];

/** How a job can end failed: the codes the queue records on a failed job. */
export type JobFailureCode = CodeOf<'job_failure'> | 'unsupported_format' | 'internal_error';

export const kindOf = (code: ErrorCode): ErrorKind => ERROR_CODES[code];

export interface ValidationItem {
  loc: (string | number)[];
  msg: string;
  type: string;
  input?: unknown;
  ctx?: Record<string, unknown>;
}

export interface ErrorDetails {
  /** For `invalid`: one item per bad field. */
  items?: ValidationItem[];
  /** For `rate_limited`: when trying again can succeed. */
  retryAfterSeconds?: number;
}

/** The base of every coded error in Quire. */
export class QuireError<C extends ErrorCode = ErrorCode> extends Error {
  constructor(
    readonly code: C,
    message: string,
    readonly details: ErrorDetails = {},
  ) {
    super(message);
  }

  get kind(): ErrorKind {
    return kindOf(this.code);
  }
}

export const isQuireError = (err: unknown): err is QuireError => err instanceof QuireError;

/** Request fields that fail validation, answered with one item per field. */
export class RequestValidationError extends QuireError<'request_invalid'> {
  readonly items: ValidationItem[];

  constructor(items: ValidationItem[]) {
    const echoed = items.map(withSafeInput);
    super('request_invalid', 'request validation failed', { items: echoed });
    this.items = echoed;
  }
}

/**
 * An item echoes what was sent, as FastAPI does, except a secret: no `input` when the echoed value
 * is a field that names one (a password too short is not sent back), secrets inside an echoed
 * object replaced, and a very long value cut.
 */
function withSafeInput(item: ValidationItem): ValidationItem {
  if (!('input' in item)) return item;
  const { input, ...rest } = item;
  // A missing field echoes the object it is missing from.
  const echoedAt = item.type === 'missing' ? item.loc.slice(0, -1) : item.loc;
  if (echoedAt.some((segment) => typeof segment === 'string' && namesSecret(segment))) return rest;
  return { ...rest, input: redact(input) };
}

export const badRequest = (code: CodeOf<'rule'>, detail: string) => new QuireError(code, detail);
export const unauthorized = (detail = 'Sign in, or send a valid API key, as "Authorization: Bearer <token>".') =>
  new QuireError('unauthorized', detail);
export const forbidden = (code: CodeOf<'forbidden'>, detail: string) => new QuireError(code, detail);
export const notFound = (resource: string) =>
  new QuireError('not_found', `${resource} was not found. Check the id, and that it belongs to your tenant.`);
/** 404 for a link sent by email (an invitation, a password reset): no tenant to check, only a way on. */
export const linkNotValid = (link: string, wayOn: string) =>
  new QuireError('not_found', `${link} is not valid: it was used, revoked or has expired, or was copied only in part. ${wayOn}`);
export const conflict = (code: CodeOf<'conflict'>, detail: string) => new QuireError(code, detail);
export const payloadTooLarge = (detail: string) => new QuireError('payload_too_large', detail);
export const unsupportedMedia = (code: CodeOf<'unsupported_media'>, detail: string) => new QuireError(code, detail);
export const tooManyRequests = (code: CodeOf<'rate_limited'>, detail: string, retryAfterSeconds: number) =>
  new QuireError(code, detail, { retryAfterSeconds });
export const unavailable = (code: CodeOf<'unavailable'>, detail: string) => new QuireError(code, detail);
export const validationError = (items: ValidationItem[]) => new RequestValidationError(items);
