// Ground truth for OCR from ../shared/data (used in place, never copied): ocr-text (plain text),
// sroie (box files: one transcript per printed line, with its quad) and funsd (words with boxes).
// Boxed truth is put in reading order by the same rule as the OCR output (metrics.ts).
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { readingOrderText } from '../src/pipeline/ocr/metrics.js';
import type { BBox } from '../src/pipeline/ocr/types.js';

export const DATA_DIR = process.env.QUIRE_SHARED_DATA ?? path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'shared', 'data');

export type OcrSet = 'ocr-text' | 'sroie' | 'funsd';

export interface OcrSample {
  set: OcrSet;
  id: string;
  file: string;
  truth: string;
  /** Tesseract languages the page needs. */
  languages: string[];
  /** Expected correction, for rotated copies. */
  rotation?: number;
  /** SROIE transcripts are upper-cased whatever the print says: compare case-insensitively. */
  upperCaseTruth?: boolean;
}

/** The hypothesis as the sample's truth is written (upper-cased for SROIE). */
export function comparable(sample: OcrSample, hypothesis: string): string {
  return sample.upperCaseTruth ? hypothesis.toUpperCase() : hypothesis;
}

export const dataAvailable = () => existsSync(path.join(DATA_DIR, 'ocr-text', 'phototest.tif'));

const read = (...p: string[]) => readFileSync(path.join(DATA_DIR, ...p), 'utf8');

export function ocrTextSamples(): OcrSample[] {
  const phototest = read('ocr-text', 'phototest.txt');
  const s = (id: string, file: string, truth: string, languages = ['eng'], rotation?: number): OcrSample => ({
    set: 'ocr-text',
    id,
    file: path.join(DATA_DIR, 'ocr-text', file),
    truth,
    languages,
    ...(rotation === undefined ? {} : { rotation }),
  });
  return [
    s('phototest', 'phototest.tif', phototest),
    s('phototest-rotated-180', 'phototest-rotated-180.png', phototest, ['eng'], 180),
    s('phototest-rotated-L', 'phototest-rotated-L.png', phototest, ['eng'], 90),
    s('phototest-rotated-R', 'phototest-rotated-R.png', phototest, ['eng'], 270),
    s('eurotext', 'eurotext.tif', read('ocr-text', 'eurotext.txt'), ['deu', 'eng', 'fra', 'spa']),
    s('8087_054.3B', '8087_054.3B.tif', read('ocr-text', '8087_054.3B.txt')),
    s('8071_093.3B', '8071_093.3B.tif', read('ocr-text', '8071_093.3B.txt')),
  ];
}

function quadBox(nums: number[]): BBox {
  const xs = [nums[0], nums[2], nums[4], nums[6]];
  const ys = [nums[1], nums[3], nums[5], nums[7]];
  return [Math.min(...xs), Math.min(...ys), Math.max(...xs), Math.max(...ys)];
}

export function sroieSamples(): OcrSample[] {
  const dir = path.join(DATA_DIR, 'sroie');
  return readdirSync(path.join(dir, 'box'))
    .filter((f) => f.endsWith('.csv'))
    .sort()
    .map((f) => {
      const id = f.replace(/\.csv$/, '');
      const lines = read('sroie', 'box', f)
        .split(/\r?\n/)
        .filter((l) => l.trim())
        .map((l) => {
          const parts = l.split(',');
          return { bbox: quadBox(parts.slice(0, 8).map(Number)), text: parts.slice(8).join(',').trim() };
        })
        .filter((l) => l.text);
      return { set: 'sroie' as const, id, file: path.join(dir, 'img', `${id}.jpg`), truth: readingOrderText(lines), languages: ['eng'], upperCaseTruth: true };
    });
}

interface FunsdEntity {
  words: { box: BBox; text: string }[];
}

export function funsdSamples(): OcrSample[] {
  const dir = path.join(DATA_DIR, 'funsd');
  return readdirSync(path.join(dir, 'annotations'))
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => {
      const id = f.replace(/\.json$/, '');
      const form = (JSON.parse(read('funsd', 'annotations', f)) as { form: FunsdEntity[] }).form;
      const words = form.flatMap((e) => e.words).filter((w) => w.text.trim()).map((w) => ({ text: w.text.trim(), bbox: w.box }));
      return { set: 'funsd' as const, id, file: path.join(dir, 'images', `${id}.png`), truth: readingOrderText(words), languages: ['eng'] };
    });
}

export function samples(set: OcrSet): OcrSample[] {
  return set === 'ocr-text' ? ocrTextSamples() : set === 'sroie' ? sroieSamples() : funsdSamples();
}
