// The messages between a worker loop and its pipeline thread (pipeline-thread.ts).
import type { CanonicalJson } from '../pipeline/index.js';

export interface PipelineTask {
  bytes: Uint8Array;
  pageRange?: string;
  pdfMaxPages?: number;
  pageCapPolicy?: 'fail' | 'truncate';
  pptxNotesMode?: 'margin' | 'pages' | 'off';
  /** Page images for the console (PDF only); null = none. */
  renderDpi: number | null;
}

export interface PipelineOutput {
  format: string;
  pageCount: number;
  canonical: CanonicalJson;
  images: { pageNumber: number; png: Uint8Array }[];
}

export type AbortKind = 'cancelled' | 'timeout';

export type ToThread = { type: 'run'; id: number; task: PipelineTask } | { type: 'abort'; id: number; kind: AbortKind };

export type FromThread =
  | { type: 'progress'; id: number; done: number; total: number }
  | { type: 'done'; id: number; output: PipelineOutput }
  | { type: 'failed'; id: number; code: string; message: string; internal: boolean };
