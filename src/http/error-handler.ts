// The single place errors become responses: a coded error → its kind's status and {detail, code};
// validation → 422 detail[]; Fastify's own client errors → a clear 4xx; anything else → 500
// without internals, logged with the request id.
import type { Socket } from 'node:net';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { type ErrorKind, QuireError, RequestValidationError } from '../lib/errors.js';

/**
 * The status each kind of coded error is answered with. Job failures and internal faults are no
 * answer to a request: reaching here, they are answered as an unexpected failure.
 */
export const STATUS_OF_KIND: Record<ErrorKind, number | null> = {
  rule: 400,
  unauthenticated: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  too_large: 413,
  unsupported_media: 415,
  invalid: 422,
  rate_limited: 429,
  unavailable: 503,
  job_failure: null,
  internal: null,
};

function sendCoded(error: QuireError, status: number, reply: FastifyReply) {
  if (error.kind === 'unauthenticated') reply.header('www-authenticate', 'Bearer');
  const retryAfter = error.details.retryAfterSeconds;
  if (retryAfter !== undefined) reply.header('retry-after', String(Math.max(1, Math.ceil(retryAfter))));
  return reply.status(status).send({ detail: error.message, code: error.code });
}

const FASTIFY_CLIENT_ERRORS: Record<string, [number, string, string]> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: [415, 'unsupported_media_type', 'This endpoint does not accept that Content-Type; send application/json (or multipart/form-data where a file is uploaded).'],
  FST_ERR_CTP_BODY_TOO_LARGE: [413, 'payload_too_large', 'The request body is larger than this server accepts.'],
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: [400, 'invalid_content_length', 'The Content-Length header does not match the body.'],
  FST_ERR_CTP_INVALID_TYPE: [415, 'unsupported_media_type', 'The Content-Type header is not valid.'],
  FST_ERR_CTP_EMPTY_TYPE: [415, 'unsupported_media_type', 'The Content-Type header is empty.'],
};

export function errorHandler(error: FastifyError | Error, request: FastifyRequest, reply: FastifyReply) {
  if (error instanceof RequestValidationError) {
    return reply.status(422).send({ detail: error.items });
  }
  if (error instanceof QuireError) {
    const status = STATUS_OF_KIND[error.kind];
    // A code from outside the catalogue (a message from a thread) has no kind: unexpected, as below.
    if (status) return sendCoded(error, status, reply);
  }
  const code = (error as FastifyError).code;
  if (code === 'FST_ERR_VALIDATION' && (error as FastifyError).validation) {
    return reply.status(422).send({
      detail: [{ loc: [(error as FastifyError).validationContext ?? 'body'], msg: error.message, type: 'value_error' }],
    });
  }
  if (error instanceof SyntaxError || code === 'FST_ERR_CTP_INVALID_JSON_BODY') {
    // FastAPI answers malformed JSON as a validation failure of the body.
    return reply.status(422).send({
      detail: [{ loc: ['body'], msg: 'JSON decode error', type: 'json_invalid', input: null, ctx: { error: error.message } }],
    });
  }
  const known = code ? FASTIFY_CLIENT_ERRORS[code] : undefined;
  if (known) return reply.status(known[0]).send({ detail: known[2], code: known[1] });
  const status = (error as FastifyError).statusCode;
  if (status && status >= 400 && status < 500) {
    return reply.status(status).send({ detail: error.message, code: (code ?? 'bad_request').replace(/^FST_ERR_/, '').toLowerCase() });
  }
  request.log.error({ err: error }, 'unhandled error');
  return reply.status(500).send({
    detail: `Something went wrong on our side. Quote request id ${request.id} when reporting it.`,
    code: 'internal_error',
  });
}

const FRAMEWORK_ERRORS: Record<string, [number, string, string]> = {
  FST_ERR_MAX_PARAM_LENGTH: [414, 'uri_too_long', 'A path parameter is longer than any identifier this API issues. Check the URL.'],
  FST_ERR_BAD_URL: [400, 'bad_url', 'The URL is not valid: a path segment could not be decoded. Check its percent-encoding.'],
  FST_ERR_ASYNC_CONSTRAINT: [400, 'bad_request', 'The request could not be routed. Check the URL and headers.'],
};

/** Errors Fastify raises before a route runs (router limits, undecodable URLs), in the contract's shape. */
export function frameworkErrorHandler(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  const known = FRAMEWORK_ERRORS[error.code];
  if (!known) return errorHandler(error, request, reply);
  reply.header('x-content-type-options', 'nosniff');
  return reply.status(known[0]).send({ detail: known[2], code: known[1] });
}

/**
 * Requests Node's HTTP parser refuses (a control character in a header, a malformed request line)
 * never reach Fastify: answer them on the socket in the contract's shape, then close it.
 */
export function clientErrorHandler(error: Error & { code?: string }, socket: Socket) {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, reason, code, detail] =
    error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? [408, 'Request Timeout', 'request_timeout', 'The request was not received in time. Send it again.']
      : error.code === 'HPE_HEADER_OVERFLOW'
        ? [431, 'Request Header Fields Too Large', 'headers_too_large', 'The request headers are larger than this server accepts.']
        : [400, 'Bad Request', 'malformed_request', 'The request could not be parsed: check the request line and headers for control characters or invalid syntax.'];
  const body = JSON.stringify({ detail, code });
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\nX-Content-Type-Options: nosniff\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(error);
}
