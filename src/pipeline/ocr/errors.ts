// OCR failures are data: a stable code and a sentence a person can act on. The pipeline maps
// them onto the job's `ocr_failed` failure (with the page number) or a policy error.
import { QuireError } from '../../lib/errors.js';

export type OcrErrorCode =
  /** A language was asked for whose data package is not installed. */
  | 'ocr_language_unavailable'
  /** The image bytes cannot be decoded. */
  | 'ocr_image_unreadable'
  /** An engine could not start or crashed while reading a page. */
  | 'ocr_engine_failed';

export class OcrError extends QuireError<OcrErrorCode> {
  override readonly name = 'OcrError';
  constructor(code: OcrErrorCode, message: string) {
    super(code, message);
  }

  toJSON(): { code: OcrErrorCode; message: string } {
    return { code: this.code, message: this.message };
  }
}

export const isOcrError = (err: unknown): err is OcrError => err instanceof OcrError;
