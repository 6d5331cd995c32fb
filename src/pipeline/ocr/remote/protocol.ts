// The remote OCR protocol (docs/ocr.md, "Remote OCR service"): Quire POSTs one page image and
// reads words with pixel boxes and confidences. Every call passes the SSRF guard.
import { type GuardOptions, createGuardedFetch } from '../../../lib/ssrf-guard.js';

export interface RemoteOcrEndpoint {
  base_url: string;
  api_key: string | null;
  timeout_seconds: number;
}

export interface RemoteWord {
  text: string;
  /** [x0, y0, x1, y1] in pixels of the image sent, from its top-left corner. */
  bbox: [number, number, number, number];
  confidence: number;
}

export interface RemoteOcrAnswer {
  width: number;
  height: number;
  words: RemoteWord[];
}

export class RemoteOcrError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RemoteOcrError';
  }
}

export function recognizeUrl(baseUrl: string): string {
  return `${baseUrl.replace(/\/+$/, '')}/recognize`;
}

function isWord(value: unknown): value is RemoteWord {
  const w = value as RemoteWord;
  return (
    !!w &&
    typeof w.text === 'string' &&
    Array.isArray(w.bbox) &&
    w.bbox.length === 4 &&
    w.bbox.every((n) => typeof n === 'number' && Number.isFinite(n)) &&
    typeof w.confidence === 'number' &&
    w.confidence >= 0 &&
    w.confidence <= 1
  );
}

/** Sends one PNG page image; answers the words the service read, checked against the protocol. */
export async function recognizeRemote(endpoint: RemoteOcrEndpoint, png: Uint8Array, languages: string[], guard: GuardOptions, fetchImpl = createGuardedFetch(guard)): Promise<RemoteOcrAnswer> {
  const headers: Record<string, string> = { 'content-type': 'image/png', accept: 'application/json', 'x-quire-languages': languages.join(',') };
  if (endpoint.api_key) headers.authorization = `Bearer ${endpoint.api_key}`;
  const response = await fetchImpl(recognizeUrl(endpoint.base_url), {
    method: 'POST',
    headers,
    body: png as unknown as BodyInit,
    signal: AbortSignal.timeout(endpoint.timeout_seconds * 1000),
  });
  if (!response.ok) {
    await response.body?.cancel();
    throw new RemoteOcrError(`the OCR service answered HTTP ${response.status}`);
  }
  let body: unknown;
  try {
    body = await response.json();
  } catch {
    throw new RemoteOcrError('the OCR service answered something other than JSON');
  }
  const answer = body as Partial<RemoteOcrAnswer>;
  if (!answer || !Array.isArray(answer.words)) throw new RemoteOcrError('the OCR service answer has no "words" array');
  const bad = answer.words.findIndex((w) => !isWord(w));
  if (bad >= 0) throw new RemoteOcrError(`word ${bad} of the OCR service answer is not {text, bbox: [x0, y0, x1, y1], confidence: 0..1}`);
  return { width: Number(answer.width) || 0, height: Number(answer.height) || 0, words: answer.words };
}
