// Pipeline failures are data: a stable failure code from spec/decisions.md and a sentence that
// tells the submitter what to do next. The job layer copies both onto the failed job unchanged.
import { QuireError } from '../../lib/errors.js';

export type PipelineFailureCode =
  | 'unsupported_format'
  | 'corrupt_document'
  | 'encrypted_document'
  | 'empty_document'
  | 'page_cap_exceeded'
  | 'ocr_failed'
  | 'invalid_page_range'
  | 'resource_limit'
  | 'timeout'
  | 'cancelled'
  | 'internal_error';

export class PipelineError extends QuireError<PipelineFailureCode> {
  override readonly name = 'PipelineError';
  /** The document's page count, when it was known at the failure (the job records it). */
  pageCount?: number;
  constructor(code: PipelineFailureCode, message: string) {
    super(code, message);
  }

  toJSON(): { code: PipelineFailureCode; message: string } {
    return { code: this.code, message: this.message };
  }
}

export const isPipelineError = (err: unknown): err is PipelineError => err instanceof PipelineError;

/** Records the document's page count on a failure raised once it was known (the job keeps it). */
export function notePageCount<E>(err: E, pageCount: number): E {
  if (isPipelineError(err) && err.pageCount === undefined) err.pageCount = pageCount;
  return err;
}

export const unsupportedFormat = (what: string) =>
  new PipelineError(
    'unsupported_format',
    `The file is ${what}, which Quire cannot read. Send a PDF, PPTX, PNG, JPEG, TIFF, WebP or text file (UTF-8 or Windows-1252).`,
  );

export const corruptDocument = (detail: string) =>
  new PipelineError(
    'corrupt_document',
    `The file could not be read (${detail}). Re-export or re-download the original and upload it again.`,
  );

export const encryptedDocument = (kind: 'pdf' | 'office' = 'pdf') =>
  new PipelineError(
    'encrypted_document',
    kind === 'pdf'
      ? 'The PDF is protected by a password. Remove the password (for example "Print to PDF" or qpdf --decrypt) and upload it again.'
      : 'The Office file is protected by a password. Open it, save it without the password (File > Info > Protect > Encrypt with Password, cleared) and upload it again.',
  );

export const emptyDocument = (detail: string) =>
  new PipelineError('empty_document', `The document has nothing to process (${detail}). Check that you uploaded the intended file.`);

export const pageCapExceeded = (pages: number, cap: number, ranged: boolean) =>
  new PipelineError(
    'page_cap_exceeded',
    `${ranged ? 'The page range selects' : 'The document has'} ${pages} pages, more than the limit of ${cap}. Send a page_range of at most ${cap} pages, split the file, or use page_cap_policy=truncate.`,
  );

export const invalidPageRange = (detail: string) =>
  new PipelineError('invalid_page_range', `The page range is not valid: ${detail}. Use pages and spans such as "1-3,7".`);

/** A well-formed range that runs past the document: the way on is a range within its pages, not another spelling. */
export const pageRangePastEnd = (asked: string, pageCount: number) =>
  new PipelineError(
    'invalid_page_range',
    `The page range is not valid: ${asked} asked for, but the document has ${pageCount} page${pageCount === 1 ? '' : 's'}. Reprocess the job with a page_range within ${pageCount === 1 ? 'page 1' : `pages 1-${pageCount}`}, or without one to read every page.`,
  );

export const resourceLimit = (detail: string) =>
  new PipelineError(
    'resource_limit',
    `The document needs more resources than Quire allows one document (${detail}). Split it into smaller files or send a page_range, then upload again.`,
  );

/** A canonical document larger than a job's result may be (QUIRE_MAX_RESULT_MB). */
export function resultTooLarge(bytes: number, limit: number, pageCount: number): PipelineError {
  const mb = (n: number) => `${Math.ceil(n / 2 ** 20)} MB`;
  const err = resourceLimit(`its result would be ${mb(bytes)} of JSON, more than the ${mb(limit)} one job's result may be`);
  err.pageCount = pageCount;
  return err;
}

/**
 * A page the parser cannot load (a page tree entry that is missing or broken, a /Count larger
 * than the tree). Not a failure of the document: the page is kept as a failed page with no text,
 * and the run fails only when no page yields anything.
 */
export class PageUnreadable extends Error {
  override readonly name = 'PageUnreadable';
  constructor(readonly pageNumber: number) {
    super(`page ${pageNumber} cannot be loaded from the PDF (its page tree entry is missing or broken)`);
  }
}
