import { readFileSync, readdirSync } from 'node:fs';
import { tuneNativeAllocator, releaseFreedNativeMemory } from '../src/lib/native-heap.js';
import { getOcrEngine, closeOcrEngines, ocrPage } from '../src/pipeline/ocr/index.js';
tuneNativeAllocator();
const mb = () => Math.round(process.memoryUsage.rss() / 1e6);
const which = process.argv[2] as 'tesseract' | 'paddle' | 'both';
const imgs = ['/work/shared/data/funsd/images/' + readdirSync('/work/shared/data/funsd/images').sort()[0], '/work/shared/data/sroie/img/' + readdirSync('/work/shared/data/sroie/img').sort()[0], '/work/shared/data/funsd/images/' + readdirSync('/work/shared/data/funsd/images').sort()[3]];
console.log('start', mb());
for (const f of imgs) {
  const bytes = readFileSync(f);
  const t = performance.now();
  if (which === 'both') await ocrPage(bytes, {}); else await getOcrEngine(which).recognize(bytes);
  console.log(which, f.split('/').pop(), 'rss', mb(), Math.round(performance.now() - t), 'ms');
}
releaseFreedNativeMemory(); console.log('trimmed', mb());
await closeOcrEngines(); releaseFreedNativeMemory(); console.log('closed', mb());
