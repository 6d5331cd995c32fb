// The size of the canonical result real documents make: each PDF, PPTX and text file under
// ../shared/data read as a job reads it (without OCR), its canonical JSON measured. Sets the
// default of QUIRE_MAX_RESULT_MB with its headroom.
//   npx tsx bench/result-size.ts [dir ...]
import { readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { runCanonical, toCanonicalJson } from '../src/pipeline/index.js';
import { DATA } from './lib/hostile-files.js';

const KINDS = /\.(pdf|pptx|txt|md|csv)$/i;

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return filesUnder(full);
    return KINDS.test(name) ? [full] : [];
  });
}

const dirs = process.argv.slice(2);
const files = (dirs.length ? dirs : [DATA]).flatMap(filesUnder).sort();
const rows: { file: string; bytes: number; pages: number; perPage: number }[] = [];
for (const file of files) {
  try {
    const doc = await runCanonical(new Uint8Array(readFileSync(file)));
    const bytes = Buffer.byteLength(JSON.stringify(toCanonicalJson(doc)));
    rows.push({ file: path.relative(DATA, file), bytes, pages: doc.pages.length, perPage: bytes / doc.pages.length });
  } catch {
    // not a document Quire reads (failure codes are another bench's business)
  }
}
const MB = 2 ** 20;
rows.sort((a, b) => b.bytes - a.bytes);
for (const r of rows.slice(0, 8)) console.log(`${(r.bytes / MB).toFixed(2).padStart(7)} MB ${String(r.pages).padStart(4)} pages ${(r.perPage / 1024).toFixed(0).padStart(6)} KB/page  ${r.file}`);
const densest = rows.reduce((a, b) => (b.perPage > a.perPage ? b : a));
console.log(`${rows.length} documents; largest result ${(rows[0]!.bytes / MB).toFixed(2)} MB (${rows[0]!.file}), densest page ${(densest.perPage / 1024).toFixed(0)} KB (${densest.file})`);
