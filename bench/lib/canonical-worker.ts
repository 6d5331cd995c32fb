// A benchmark worker thread: runs the canonical pipeline on each file path it is sent and
// answers with the page count, so the parent can measure throughput with all cores busy.
import { readFileSync } from 'node:fs';
import { parentPort } from 'node:worker_threads';
import { runCanonical } from '../../src/pipeline/index.js';

parentPort!.on('message', async (file: string | null) => {
  if (file === null) return void parentPort!.close();
  try {
    const doc = await runCanonical(readFileSync(file));
    parentPort!.postMessage({ file, pages: doc.pages.length });
  } catch {
    parentPort!.postMessage({ file, pages: 0 });
  }
});
