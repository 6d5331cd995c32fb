// Page images drawn on demand: a finished job lists one page_image artifact per page without a
// file yet; the first download draws it from the source, stores it and fills in sha256 and size;
// later downloads serve the stored file. Another tenant's image stays a 404.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FILES, upload, waitForJob } from '../helpers/documents.js';
import { DEFAULT_TENANT_ID, type Harness, startHarness } from '../helpers/harness.js';

let h: Harness;
let member: string;

beforeAll(async () => {
  h = await startHarness({}, { workers: 1 });
  member = (await h.seedUser(DEFAULT_TENANT_ID, 'member')).token!;
});
afterAll(() => h.close());

async function get(url: string, token = member, headers: Record<string, string> = {}) {
  const res = await fetch(`${h.baseUrl}${url}`, { headers: { authorization: `Bearer ${token}`, ...headers } });
  return { status: res.status, etag: res.headers.get('etag'), type: res.headers.get('content-type'), bytes: Buffer.from(await res.arrayBuffer()) };
}

const sha = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

describe('page images', () => {
  it('are listed at once, drawn on the first download, then served as stored', async () => {
    const res = await upload(h, member, FILES.multipage, { processing_mode: 'canonical' });
    expect(res.status).toBe(202);
    const job = await waitForJob(h, member, res.body.job_id);
    expect(job.status).toBe('completed');
    const images = job.artifacts.filter((a: { kind: string }) => a.kind === 'page_image');
    expect(images.length).toBe(job.page_count);
    expect(job.result.engine.page_images).toBe(job.page_count);
    for (const image of images) expect(image).toMatchObject({ sha256: null, size_bytes: null, content_type: 'image/png' });

    // Two first downloads of the same page at once: one drawing, the same bytes for both.
    const [a, b] = await Promise.all([get(images[0].url), get(images[0].url)]);
    expect([a.status, b.status]).toEqual([200, 200]);
    expect(a.type).toBe('image/png');
    expect(a.bytes.subarray(1, 4).toString()).toBe('PNG');
    expect(b.bytes.equals(a.bytes)).toBe(true);
    expect(a.etag).toBe(`"${sha(a.bytes)}"`);

    const after = (await h.request('GET', `/v1/documents/${job.job_id}`, { token: member })).body;
    const drawn = after.artifacts.find((x: { id: string }) => x.id === images[0].id);
    expect(drawn).toMatchObject({ sha256: sha(a.bytes), size_bytes: a.bytes.length });
    // Only the page asked for was drawn.
    const others = after.artifacts.filter((x: { kind: string; id: string }) => x.kind === 'page_image' && x.id !== images[0].id);
    for (const other of others) expect(other.sha256).toBeNull();

    const again = await get(images[0].url);
    expect(again.bytes.equals(a.bytes)).toBe(true);
    expect((await get(images[0].url, member, { 'if-none-match': a.etag! })).status).toBe(304);
    const ranged = await get(images[0].url, member, { range: 'bytes=0-7' });
    expect(ranged.status).toBe(206);
    expect(ranged.bytes.equals(a.bytes.subarray(0, 8))).toBe(true);

    // A second page, drawn by its own first download, is a different picture.
    const second = await get(images[1].url);
    expect(second.status).toBe(200);
    expect(second.bytes.equals(a.bytes)).toBe(false);
  });

  it('stays a 404 for another tenant, drawn or not', async () => {
    const res = await upload(h, member, FILES.invoice, { processing_mode: 'canonical' });
    const job = await waitForJob(h, member, res.body.job_id);
    const image = job.artifacts.find((a: { kind: string }) => a.kind === 'page_image');
    await h.seedTenant('pageimgother');
    const stranger = (await h.seedUser('pageimgother', 'admin')).token!;
    expect((await get(image.url, stranger)).status).toBe(404);
    const undrawn = (await h.request('GET', `/v1/documents/${job.job_id}`, { token: member })).body.artifacts.find((a: { id: string }) => a.id === image.id);
    expect(undrawn.sha256).toBeNull();
    expect((await get(image.url)).status).toBe(200);
    expect((await get(image.url, stranger)).status).toBe(404);
  });
});
