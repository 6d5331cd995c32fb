// Page images drawn on demand. A job records one page_image artifact per page with how to draw
// it (PageRender) but no file; the first download draws the page from the job's source file
// (~40 ms for a letter page at 100 dpi), stores the PNG like any artifact and fills in its
// sha256 and size. Later downloads are plain blob reads. Most pages of most jobs are never
// looked at, so the worker no longer spends a third of a job drawing them.
import type { Db } from '../../db/database.js';
import type { PageRender } from '../../db/documents-schema.js';
import { renderPagePng } from '../../pipeline/render-page.js';
import { storeBytes } from '../../storage/blob-registry.js';
import type { BlobStore } from '../../storage/blob-store.js';

export interface DrawnImage {
  sha256: string;
  size_bytes: number;
}

interface PendingImage {
  id: string;
  tenant_id: string;
  job_id: string;
  page_number: number | null;
  render: PageRender | null;
}

/** Concurrent first downloads of the same page share one drawing. */
const drawing = new Map<string, Promise<DrawnImage>>();

export function drawPageImage(db: Db, blobs: BlobStore, artifact: PendingImage): Promise<DrawnImage> {
  const inFlight = drawing.get(artifact.id);
  if (inFlight) return inFlight;
  const work = draw(db, blobs, artifact).finally(() => drawing.delete(artifact.id));
  drawing.set(artifact.id, work);
  return work;
}

async function draw(db: Db, blobs: BlobStore, artifact: PendingImage): Promise<DrawnImage> {
  if (!artifact.render || artifact.page_number === null) throw new Error(`artifact ${artifact.id} has neither a file nor a way to draw it`);
  const job = await db.selectFrom('jobs').select('sha256').where('tenant_id', '=', artifact.tenant_id).where('id', '=', artifact.job_id).executeTakeFirstOrThrow();
  const source = await blobs.readAll(job.sha256);
  const { dpi, quarter_turns, width_pt } = artifact.render;
  const png = await renderPagePng(source, artifact.page_number, { dpi, quarterTurns: quarter_turns, widthPt: width_pt });
  const stored = await storeBytes(db, blobs, png);
  // Another process may have drawn it meanwhile: the same bytes, so either answer is right.
  await db
    .updateTable('artifacts')
    .set({ sha256: stored.sha256, size_bytes: stored.size })
    .where('id', '=', artifact.id)
    .where('sha256', 'is', null)
    .execute();
  return { sha256: stored.sha256, size_bytes: stored.size };
}
