// A pipeline task names its document by path when the blob store is on this machine: the thread
// reads the file itself, and answers exactly what it answers for the same bytes sent along.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PipelinePool } from '../../src/queue/pipeline-pool.js';
import type { TaskSource } from '../../src/queue/pipeline-task.js';
import { FILES } from '../helpers/documents.js';

const pool = new PipelinePool(1);
afterAll(() => pool.stop());

function run(source: TaskSource) {
  return pool.run({ ...source, ocr: null, renderDpi: null }, { signal: new AbortController().signal, abortKind: () => 'cancelled' });
}

describe('the pipeline task source', () => {
  it('reads a document from its path in the thread, with the same output as its bytes', async () => {
    const fromBytes = await run({ bytes: new Uint8Array(fs.readFileSync(FILES.invoice)) });
    const fromPath = await run({ path: FILES.invoice });
    expect(fromPath.canonicalText).toBe(fromBytes.canonicalText);
    expect(fromPath.markdown).toBe(fromBytes.markdown);
    expect(fromPath).toMatchObject({ format: 'pdf', pageCount: fromBytes.pageCount });
  }, 60_000);

  it('fails as an internal error, worth a retry and naming no server path, when the file is gone', async () => {
    const gone = path.join(os.tmpdir(), `quire-missing-${process.pid}.pdf`);
    const failure = await run({ path: gone }).catch((err: unknown) => err);
    expect(failure).toMatchObject({ code: 'internal_error', internal: true, message: 'The stored upload is missing from the blob store.' });
    expect(String((failure as Error).message)).not.toContain(os.tmpdir());
    // The thread carries on with the next task.
    expect((await run({ path: FILES.invoice })).format).toBe('pdf');
  }, 60_000);
});
