// The remote OCR engine through a real job: with an `ocr` endpoint in effect, the page image goes
// to a loopback service speaking the protocol of docs/ocr.md, and its words become the page's text.
import { readFileSync } from 'node:fs';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { data, upload, waitForJob } from '../helpers/documents.js';
import { type Harness, startHarness } from '../helpers/harness.js';
import { type LoopbackHttp, type Recorded, startHttpServer } from '../helpers/loopback-servers.js';

const SCAN = data('ocr-text/phototest.tif');
const OCR_WAIT_MS = 150_000;

let h: Harness;
let root: string;
let service: LoopbackHttp;
let failing: LoopbackHttp;

/** Width and height from a PNG's IHDR chunk. */
function pngSize(body: Buffer): [number, number] {
  return [body.readUInt32BE(16), body.readUInt32BE(20)];
}

/** The first and last columns and rows holding dark pixels, and the image's size. */
async function inkExtent(image: Buffer) {
  const { data, info } = await sharp(image).greyscale().raw().toBuffer({ resolveWithObject: true });
  const from = [info.width, info.height];
  const to = [0, 0];
  for (let y = 0; y < info.height; y++) {
    for (let x = 0; x < info.width; x++) {
      if (data[(y * info.width + x) * info.channels] >= 128) continue;
      [from[0], from[1], to[0], to[1]] = [Math.min(from[0], x), Math.min(from[1], y), Math.max(to[0], x + 1), Math.max(to[1], y + 1)];
    }
  }
  return { from, to, size: [info.width, info.height] };
}

/** Answers two lines of words placed on the image it was sent, when the bearer key matches. */
function answer(req: Recorded) {
  if (req.headers.authorization !== 'Bearer remote-ocr-key') return { status: 401, json: { detail: 'bad key' } };
  const [w, hgt] = pngSize(req.body);
  const word = (text: string, x0: number, y0: number, x1: number, y1: number) => ({ text, bbox: [x0 * w, y0 * hgt, x1 * w, y1 * hgt], confidence: 0.99 });
  return {
    status: 200,
    json: {
      width: w,
      height: hgt,
      words: [word('Remote', 0.1, 0.1, 0.25, 0.14), word('service', 0.27, 0.1, 0.42, 0.14), word('reading', 0.44, 0.1, 0.6, 0.14), word('Total', 0.1, 0.5, 0.2, 0.54), word('42.00', 0.5, 0.5, 0.6, 0.54)],
    },
  };
}

beforeAll(async () => {
  h = await startHarness({ outboundAllow: ['127.0.0.1'] }, { workers: 1 });
  root = await h.adminToken();
  service = await startHttpServer(answer);
  failing = await startHttpServer(() => ({ status: 503, json: { detail: 'overloaded' } }));
});
afterAll(async () => {
  await service?.close();
  await failing?.close();
  await h?.close();
});

async function ocrJob(tenant: string) {
  await h.seedTenant(tenant);
  const admin = (await h.seedUser(tenant, 'admin')).token!;
  const res = await upload(h, admin, SCAN, { processing_mode: 'canonical' });
  expect(res.status, JSON.stringify(res.body)).toBe(202);
  return waitForJob(h, admin, res.body.job_id, undefined, OCR_WAIT_MS);
}

describe('remote OCR engine', () => {
  it(
    'reads scanned pages through the OCR service in effect, with boxes in page points',
    async () => {
      const put = await h.request('PUT', '/v1/admin/platform/infra/ocr', { token: root, body: { base_url: service.url, credentials: { api_key: 'remote-ocr-key' } } });
      expect(put.status, JSON.stringify(put.body)).toBe(200);
      const job = await ocrJob('remote-reader');
      expect(job.status, JSON.stringify(job.failure_message)).toBe('completed');
      const [page] = job.result.canonical.pages;
      expect(page.source).toBe('ocr_remote');
      expect(job.result.canonical.text).toContain('Remote service reading');
      expect(job.result.canonical.text).toMatch(/Total\s+42\.00/);
      const decision = job.result.engine.ocr.pages[0];
      expect(decision).toMatchObject({ engine_used: 'remote', backend: 'remote', confidences: { tesseract: null, paddle: null, remote: 0.99 } });

      const sent = service.requests.at(-1)!;
      expect(sent).toMatchObject({ method: 'POST', url: '/recognize' });
      expect(sent.headers['content-type']).toBe('image/png');
      expect(sent.headers['x-quire-languages']).toBe('eng');
      // The service is sent the page's inked area. A box a tenth of the way into the image it was
      // sent lands where that point of the ink lies on the page: the ink's extent on each image
      // gives the mapping, independently of how the area was cut out and scaled.
      const words = page.blocks.flatMap((b: { lines: { words: { text: string; bbox: number[] }[] }[] }) => b.lines.flatMap((l) => l.words));
      const remote = words.find((w: { text: string }) => w.text === 'Remote');
      const [sentWidth, sentHeight] = pngSize(sent.body);
      const onSent = await inkExtent(sent.body);
      const onPage = await inkExtent(readFileSync(SCAN));
      const expected = (at: number, axis: 0 | 1) => {
        const scale = (onPage.to[axis] - onPage.from[axis]) / (onSent.to[axis] - onSent.from[axis]);
        return (onPage.from[axis] + (at - onSent.from[axis]) * scale) / onPage.size[axis];
      };
      expect(Math.abs(remote.bbox[0] / page.width - expected(0.1 * sentWidth, 0))).toBeLessThan(0.01);
      expect(Math.abs(remote.bbox[1] / page.height - expected(0.1 * sentHeight, 1))).toBeLessThan(0.01);
    },
    OCR_WAIT_MS + 30_000,
  );

  it(
    'reads the pictures of a digital page through the service too, in an entities job',
    async () => {
      await h.request('PUT', '/v1/admin/platform/infra/ocr', { token: root, body: { base_url: service.url, credentials: { api_key: 'remote-ocr-key' } } });
      await h.seedTenant('remote-pictures');
      const admin = (await h.seedUser('remote-pictures', 'admin')).token!;
      const before = service.requests.length;
      const res = await upload(h, admin, data('invoice2data/compare/saeco.pdf'), { processing_mode: 'entities' });
      const job = await waitForJob(h, admin, res.body.job_id, undefined, OCR_WAIT_MS);
      expect(job.status).toBe('completed');
      expect(job.result.canonical.pages[0].source).toBe('text_layer');
      const regions = job.result.engine.ocr.image_regions;
      expect(regions.length).toBeGreaterThanOrEqual(1);
      expect(regions.every((r: { engine_used: string }) => r.engine_used === 'remote')).toBe(true);
      expect(service.requests.length - before).toBe(regions.length);
      // The footer picture is wide and low: what the service was sent is that crop, not the page.
      const [w, hgt] = pngSize(service.requests.at(-1)!.body);
      expect(w).toBeGreaterThan(hgt * 3);
      expect(job.result.canonical.text).toContain('Remote service reading');
    },
    OCR_WAIT_MS + 30_000,
  );

  it(
    'leaves the page to the local engines when the service fails, and says so',
    async () => {
      // Another address: the stored key does not follow it (docs/endpoints.md), it is sent again.
      const moved = await h.request('PUT', '/v1/admin/platform/infra/ocr', { token: root, body: { base_url: failing.url, credentials: { api_key: 'remote-ocr-key' } } });
      expect(moved.status, JSON.stringify(moved.body)).toBe(200);
      const job = await ocrJob('remote-down');
      expect(job.status).toBe('completed');
      expect(['ocr_tesseract', 'ocr_paddle', 'ocr_mixed']).toContain(job.result.canonical.pages[0].source);
      expect(job.result.engine.ocr.pages[0].reason).toContain('the remote OCR service failed (the OCR service answered HTTP 503)');
      expect(job.result.canonical.text.length).toBeGreaterThan(50);
    },
    OCR_WAIT_MS + 30_000,
  );
});
