// Errors are data: a status, a stable code and a sentence a person can act on.
// One handler (error-handler.ts) turns them, and validation failures, into the wire shapes.

export interface ValidationItem {
  loc: (string | number)[];
  msg: string;
  type: string;
  input?: unknown;
  ctx?: Record<string, unknown>;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

export class RequestValidationError extends Error {
  constructor(readonly items: ValidationItem[]) {
    super('request validation failed');
  }
}

export const badRequest = (code: string, detail: string) => new ApiError(400, code, detail);
export const unauthorized = (detail = 'Sign in, or send a valid API key, as "Authorization: Bearer <token>".') =>
  new ApiError(401, 'unauthorized', detail, { 'www-authenticate': 'Bearer' });
export const forbidden = (code: string, detail: string) => new ApiError(403, code, detail);
export const notFound = (resource: string) =>
  new ApiError(404, 'not_found', `${resource} was not found. Check the id, and that it belongs to your tenant.`);
export const conflict = (code: string, detail: string) => new ApiError(409, code, detail);
export const tooManyRequests = (code: string, detail: string, retryAfterSeconds: number) =>
  new ApiError(429, code, detail, { 'retry-after': String(Math.max(1, Math.ceil(retryAfterSeconds))) });
export const unavailable = (code: string, detail: string) => new ApiError(503, code, detail);
export const validationError = (items: ValidationItem[]) => new RequestValidationError(items);
