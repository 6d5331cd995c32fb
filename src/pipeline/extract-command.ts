// `quire extract FILE [--mode canonical|entities|extraction] [--pages 1-3]`: the pipeline without
// the server. Prints the job `result` JSON (spec/decisions.md) to stdout; progress and messages
// go to stderr, with a progress bar only when stderr is a terminal (so pipes and logs stay clean).
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { VERSION } from '../version.js';
import { isPipelineError, parsePageRange, runCanonical, toCanonicalJson } from './index.js';
import { type ExtractionTemplate, runEntities, runExtraction } from './extract/index.js';
import { closeOcrEngines, readsTextInImages } from './ocr/index.js';

const USAGE = `Usage: quire extract FILE [options]

Runs the document pipeline on FILE and prints the result JSON to stdout.

Options:
  --mode canonical|entities|extraction   processing depth (default: canonical; extraction with --template)
  --template FILE.json                   for extraction: a template (TemplateCreatePayload
                                         JSON: json_schema, validation_rules, post_processing, ...)
  --pages RANGE                          pages or slides to process, e.g. 1-3,7
  --notes margin|pages|off               PPTX speaker notes (default: margin)
  --max-pages N                          PDF page cap; with --truncate, process the first N
  --truncate                             over the cap: truncate instead of failing
  --ocr MODE|off                         OCR for scans and images: confidence_based (default),
                                         tesseract_priority, paddle_priority, or off; in
                                         entities and extraction mode it also reads the text
                                         of pictures on digital pages (letterheads, footers)
  --languages LIST                       OCR languages, main one first (default: eng), e.g. deu,eng
  -h, --help                             show this help
`;

const MODES = ['canonical', 'entities', 'extraction'] as const;
const NOTES = ['margin', 'pages', 'off'] as const;
const OCR_MODES = ['confidence_based', 'tesseract_priority', 'paddle_priority', 'off'] as const;

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** What is wrong with a template file in the shape the API takes (a template payload), or null. */
function templateFileProblem(payload: unknown): string | null {
  if (!isPlainObject(payload)) return 'a template is a JSON object';
  const schema = payload.json_schema;
  if (!isPlainObject(schema)) return 'json_schema must be an object (a JSON Schema)';
  if (!isPlainObject(schema.properties) || Object.keys(schema.properties).length === 0) return 'json_schema needs "properties": the fields to extract';
  const rules = payload.validation_rules;
  if (rules !== undefined && (!Array.isArray(rules) || !rules.every(isPlainObject))) return 'validation_rules must be a list of rule objects';
  for (const key of ['review_thresholds', 'post_processing'] as const) {
    if (payload[key] !== undefined && payload[key] !== null && !isPlainObject(payload[key])) return `${key} must be an object`;
  }
  return null;
}

/** Returns the process exit code: 0 done, 1 the document failed, 2 bad usage. */
export async function extractCommand(args: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args,
      allowPositionals: true,
      options: {
        mode: { type: 'string' },
        template: { type: 'string' },
        pages: { type: 'string' },
        notes: { type: 'string', default: 'margin' },
        'max-pages': { type: 'string' },
        truncate: { type: 'boolean', default: false },
        ocr: { type: 'string', default: 'confidence_based' },
        languages: { type: 'string', default: 'eng' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (err) {
    return usage((err as Error).message);
  }
  const { values, positionals } = parsed;
  if (values.help) return void process.stdout.write(USAGE), 0;
  if (positionals.length !== 1) return usage('give exactly one FILE');
  // A template alone asks for extraction; with another mode named it would be ignored.
  const mode = (values.mode ?? (values.template ? 'extraction' : 'canonical')) as (typeof MODES)[number];
  if (!MODES.includes(mode)) return usage(`--mode must be one of ${MODES.join(', ')}`);
  if (values.template && mode !== 'extraction') return usage(`--template is for --mode extraction, not --mode ${mode}`);
  const notes = values.notes as (typeof NOTES)[number];
  if (!NOTES.includes(notes)) return usage(`--notes must be one of ${NOTES.join(', ')}`);
  const maxPages = values['max-pages'] === undefined ? undefined : Number(values['max-pages']);
  if (maxPages !== undefined && !(Number.isInteger(maxPages) && maxPages > 0)) return usage('--max-pages must be a positive whole number');
  const ocrMode = values.ocr as (typeof OCR_MODES)[number];
  if (!OCR_MODES.includes(ocrMode)) return usage(`--ocr must be one of ${OCR_MODES.join(', ')}`);
  if (mode === 'extraction' && !values.template) return usage('--mode extraction needs --template FILE.json');
  if (values.pages !== undefined) {
    try {
      parsePageRange(values.pages);
    } catch (err) {
      return usage(`--pages: ${(err as Error).message}`);
    }
  }
  let template: ExtractionTemplate | undefined;
  if (values.template) {
    let payload: unknown;
    try {
      payload = JSON.parse(await readFile(values.template, 'utf8'));
    } catch (err) {
      return usage(`cannot read the template ${values.template}: ${(err as Error).message}`);
    }
    const problem = templateFileProblem(payload);
    if (problem) return usage(`${values.template}: ${problem}`);
    const fields = payload as Record<string, unknown>;
    template = { ...fields, id: null, version: null, json_schema: fields.json_schema as Record<string, unknown> };
  }

  let bytes: Uint8Array;
  try {
    bytes = await readFile(positionals[0]);
  } catch (err) {
    process.stderr.write(`quire extract: cannot read ${positionals[0]}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}\n`);
    return 1;
  }
  const bar = process.stderr.isTTY ? progressBar() : undefined;
  const started = performance.now();
  try {
    const doc = await runCanonical(bytes, {
      pageRange: values.pages,
      pdfMaxPages: maxPages,
      pageCapPolicy: values.truncate ? 'truncate' : 'fail',
      pptxNotesMode: notes,
      onProgress: bar,
      ...(ocrMode === 'off' ? {} : { ocr: { policy: { ocr_selection_mode: ocrMode, language_policy: { ocr_languages: values.languages } }, textInImages: readsTextInImages({}, mode) } }),
    });
    bar?.(-1, -1);
    const canonical = toCanonicalJson(doc);
    const extracted = template ? runExtraction(canonical, template) : null;
    const result = {
      canonical,
      ...(mode === 'entities' ? { entities: runEntities(canonical) } : {}),
      ...(extracted ? { entities: extracted.entities, extraction: extracted.extraction, decision: extracted.decision.status } : {}),
      engine: {
        name: 'quire',
        version: VERSION,
        format: doc.format,
        page_count: doc.page_count,
        pages_processed: doc.pages.length,
        ...(doc.ocr ? { ocr: doc.ocr } : {}),
        elapsed_ms: Math.round(performance.now() - started),
      },
    };
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    return 0;
  } catch (err) {
    bar?.(-1, -1);
    if (!isPipelineError(err)) throw err;
    process.stderr.write(`quire extract: ${err.code}: ${err.message}\n`);
    return 1;
  } finally {
    // The engines hold worker threads and inference sessions that would keep the process alive.
    await closeOcrEngines();
  }
}

function usage(problem: string): number {
  process.stderr.write(`quire extract: ${problem}\n\n${USAGE}`);
  return 2;
}

/** A one-line bar redrawn in place; (-1, -1) clears it. Drawn at most every 100 ms. */
function progressBar(): (done: number, total: number) => void {
  let last = 0;
  return (done, total) => {
    if (done < 0) return void process.stderr.write('\r\x1b[2K');
    const now = Date.now();
    if (done !== total && now - last < 100) return;
    last = now;
    const width = 30;
    const filled = total > 0 ? Math.round((done / total) * width) : 0;
    process.stderr.write(`\r[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${done}/${total} pages`);
  };
}
