// Tesseract language data comes only from `@tesseract.js-data/<code>` npm packages, never from a
// CDN: tesseract.js downloads from jsdelivr whenever it is not handed the data itself.
// We use the `4.0.0_best_int` models (LSTM only, integer weights: the ones tesseract.js picks by
// default) for both backends, so tesseract.js and the native binary read with the same model.
import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { threadId } from 'node:worker_threads';
import { gunzipSync } from 'node:zlib';
import { OcrError } from '../errors.js';

const require = createRequire(import.meta.url);
const MODEL_DIR = '4.0.0_best_int';
const CODE = /^[a-z]{3}(_[a-z]{3,4})?$/;

/** Languages shipped with Quire (package.json dependencies). Others work if their package is installed. */
export const SHIPPED_LANGUAGES = ['eng', 'deu', 'fra', 'spa'] as const;

function packageDir(code: string): string | undefined {
  if (!CODE.test(code)) return undefined;
  try {
    return path.dirname(require.resolve(`@tesseract.js-data/${code}/package.json`));
  } catch {
    return undefined;
  }
}

/** Path of the gzipped traineddata for `code`, or a clear error naming the package to install. */
export function traineddataPath(code: string): string {
  const dir = packageDir(code);
  const file = dir && path.join(dir, MODEL_DIR, `${code}.traineddata.gz`);
  if (!file || !existsSync(file)) {
    const available = SHIPPED_LANGUAGES.filter((c) => packageDir(c)).join(', ');
    throw new OcrError(
      'ocr_language_unavailable',
      `OCR language "${code}" is not available. Installed languages: ${available || 'none'}. ` +
        `Use one of them in language_policy, or install the npm package @tesseract.js-data/${CODE.test(code) ? code : '<code>'}.`,
    );
  }
  return file;
}

/** Normalises a language list: defaults to English, dedupes, validates every entry. */
export function resolveLanguages(languages: readonly string[] | undefined): string[] {
  const list = [...new Set((languages?.length ? languages : ['eng']).map((l) => l.trim().toLowerCase()))];
  for (const code of list) traineddataPath(code);
  return list;
}

export async function readTraineddata(code: string): Promise<Buffer> {
  return gunzipSync(await readFile(traineddataPath(code)));
}

const unpacked = new Map<string, Promise<string>>();

/**
 * A tessdata directory for the native binary holding the same npm-shipped models, unpacked once
 * per process into the temp dir (the binary cannot read gzipped data).
 */
export function nativeTessdataDir(languages: readonly string[]): Promise<string> {
  const dir = path.join(tmpdir(), `quire-tessdata-${MODEL_DIR}`);
  const key = languages.join('+');
  let pending = unpacked.get(key);
  if (!pending) {
    pending = (async () => {
      await mkdir(dir, { recursive: true });
      for (const code of languages) {
        const target = path.join(dir, `${code}.traineddata`);
        if (existsSync(target)) continue;
        // Unique per thread too: worker threads share the pid and may unpack at the same moment.
        const tmp = `${target}.${process.pid}.${threadId}.${randomUUID()}.tmp`;
        await writeFile(tmp, await readTraineddata(code));
        await rename(tmp, target);
      }
      return dir;
    })();
    pending.catch(() => unpacked.delete(key));
    unpacked.set(key, pending);
  }
  return pending;
}
