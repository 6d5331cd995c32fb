// The native `tesseract` binary (about twice as fast as tesseract.js), used when it is on PATH.
// It reads the same npm-shipped models as tesseract.js (unpacked into a temp tessdata dir), runs
// single-threaded (OMP_THREAD_LIMIT=1: parallelism comes from running pages on several workers,
// and OpenMP threads fight over 2 cores) and prints the same TSV (asked for by variable: the `tsv`
// config file lives in the system tessdata dir, which we do not use).
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { OcrError } from '../errors.js';
import type { PixelEngine, ReadOptions } from '../engine.js';
import { toPng } from '../image.js';
import { Serial } from '../serial.js';
import type { PixelPage, RasterImage } from '../types.js';
import { nativeTessdataDir, resolveLanguages } from './languages.js';
import { parseTsv } from './tsv.js';

/** A page the binary has not finished in this long is abandoned (the caller's own limit is usually lower). */
const HARD_LIMIT_MS = 300_000;

let probed: { path: string; version: string } | null | undefined;

/** The native binary when it is on PATH and is Tesseract 4 or later (LSTM models); probed once. */
export function findNativeTesseract(): { path: string; version: string } | null {
  if (probed !== undefined) return probed;
  probed = null;
  try {
    const r = spawnSync('tesseract', ['--version'], { encoding: 'utf8', timeout: 5_000 });
    const m = /tesseract\s+v?(\d+)\.(\d+)\.?(\d+)?/i.exec(`${r.stdout}${r.stderr}`);
    if (r.status === 0 && m && Number(m[1]) >= 4) probed = { path: 'tesseract', version: `${m[1]}.${m[2]}.${m[3] ?? 0}` };
  } catch {
    probed = null;
  }
  return probed;
}

export class TesseractNative implements PixelEngine {
  readonly name = 'tesseract' as const;
  readonly backend: string;
  /** One binary at a time per worker, like the other engines (bounded threads and memory). */
  private readonly serial = new Serial();
  private readonly running = new Set<ChildProcess>();

  constructor(private readonly binary: { path: string; version: string }) {
    this.backend = `native ${binary.version}`;
  }

  async read(raster: RasterImage, opts: ReadOptions): Promise<PixelPage> {
    const languages = resolveLanguages(opts.languages);
    const dir = await nativeTessdataDir(languages);
    const png = await toPng(raster);
    const dpi = String(Math.round(Math.min(1200, Math.max(70, opts.dpi ?? 300))));
    const args = ['stdin', 'stdout', '--tessdata-dir', dir, '-l', languages.join('+'), '--oem', '1', '--psm', '3', '--dpi', dpi, '-c', 'tessedit_create_tsv=1', '-c', 'tessedit_create_txt=0'];
    const tsv = await this.serial.run(() => run(this.binary.path, args, png, this.running));
    return parseTsv(tsv, raster.width, raster.height);
  }

  /** Ends a page still being read (the caller gave up on it: time limit, cancel). */
  async close(): Promise<void> {
    for (const child of this.running) child.kill('SIGKILL');
  }
}

function run(bin: string, args: string[], input: Buffer, running: Set<ChildProcess>): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(bin, args, { env: { ...process.env, OMP_THREAD_LIMIT: '1' }, stdio: ['pipe', 'pipe', 'pipe'] });
    running.add(child);
    child.on('exit', () => running.delete(child));
    const out: Buffer[] = [];
    let err = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), HARD_LIMIT_MS);
    child.stdout.on('data', (d: Buffer) => out.push(d));
    child.stderr.on('data', (d: Buffer) => {
      if (err.length < 4_000) err += d.toString();
    });
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(new OcrError('ocr_engine_failed', `the tesseract binary could not run: ${e.message}`));
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve(Buffer.concat(out).toString('utf8'));
      else reject(new OcrError('ocr_engine_failed', `tesseract exited with ${signal ?? code}: ${err.trim().slice(0, 500)}`));
    });
    child.stdin.on('error', () => undefined);
    child.stdin.end(input);
  });
}
