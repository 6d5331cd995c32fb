// `npm run bench -- text-scaling [lines...]`: time to read plain-text files of growing length
// ("word\n" repeated), to check that reading stays linear in the file's size. A quadratic step
// (a string rebuilt per line) shows as the time quadrupling when the line count doubles.
import { runCanonical } from '../src/pipeline/index.js';

const counts = process.argv.slice(2).map(Number).filter((n) => n > 0);
for (const lines of counts.length ? counts : [25_000, 50_000, 100_000, 200_000]) {
  const bytes = Buffer.from('word\n'.repeat(lines));
  const started = performance.now();
  const doc = await runCanonical(bytes);
  const seconds = (performance.now() - started) / 1000;
  process.stdout.write(`${lines} lines (${(bytes.length / 1e6).toFixed(2)} MB): ${seconds.toFixed(2)} s, ${doc.pages.length} page(s), ${doc.text.length} chars\n`);
}
