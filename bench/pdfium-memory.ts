// Peak PDFium wasm memory over real PDFs: each file read as a job reads it (text layers), then
// every page rendered at the OCR resolution, in a fresh instance per file (wasm memory never
// shrinks, so its size afterwards is the file's peak). Sets QUIRE_PDFIUM_MEMORY_MB's default.
//   npx tsx bench/pdfium-memory.ts [dir ...]   (default: every PDF under ../shared/data)
import { readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { runCanonical } from '../src/pipeline/index.js';
import { OCR_RENDER_DPI } from '../src/pipeline/ingest/ocr-pages.js';
import { openPdf } from '../src/pipeline/ingest/pdf/pdf-document.js';
import { renderPdfPageRgb } from '../src/pipeline/ingest/pdf/pdf-render.js';
import { discardPdfium, loadPdfium, pdfiumMemoryBytes, setPdfiumMemoryLimit } from '../src/pipeline/ingest/pdf/pdfium.js';
import { DATA } from './lib/hostile-files.js';

const MiB = 2 ** 20;

function pdfsUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return pdfsUnder(full);
    return name.toLowerCase().endsWith('.pdf') ? [full] : [];
  });
}

async function peakOf(file: string): Promise<{ read: number; rendered: number; pages: number; outcome: string }> {
  discardPdfium();
  const bytes = new Uint8Array(readFileSync(file));
  let outcome = 'ok';
  try {
    await runCanonical(bytes);
  } catch (err) {
    outcome = (err as { code?: string }).code ?? 'error';
  }
  const read = pdfiumMemoryBytes();
  let pages = 0;
  try {
    const doc = await openPdf(bytes);
    try {
      for (let i = 0; i < doc.pageCount; i++, pages++) renderPdfPageRgb(doc, i, OCR_RENDER_DPI);
    } finally {
      doc.close();
    }
  } catch {
    // an unreadable page: the peak so far stands
  }
  return { read, rendered: pdfiumMemoryBytes(), pages, outcome };
}

setPdfiumMemoryLimit(2048); // the build's own maximum: measure, do not bound
await loadPdfium();
console.log(`fresh instance: ${(pdfiumMemoryBytes() / MiB).toFixed(1)} MB`);
const dirs = process.argv.slice(2);
const files = (dirs.length ? dirs : [DATA]).flatMap(pdfsUnder).sort();
const rows: { file: string; read: number; rendered: number; pages: number; outcome: string }[] = [];
for (const file of files) {
  const row = { file: path.relative(DATA, file), ...(await peakOf(file)) };
  rows.push(row);
  console.log(`${(row.read / MiB).toFixed(0).padStart(5)} MB read ${(row.rendered / MiB).toFixed(0).padStart(5)} MB rendered ${String(row.pages).padStart(4)} pages  ${row.outcome.padEnd(16)} ${row.file}`);
}
const top = (key: 'read' | 'rendered') => rows.reduce((a, b) => (b[key] > a[key] ? b : a));
console.log(`${files.length} PDFs; peak when read ${(top('read').read / MiB).toFixed(0)} MB (${top('read').file}), when rendered at ${OCR_RENDER_DPI} dpi ${(top('rendered').rendered / MiB).toFixed(0)} MB (${top('rendered').file})`);
