// The embedded entity and extraction stages of a large document run in the pipeline thread pool:
// the process that serves HTTP and heartbeats leases (here the test's own, with its in-process
// worker) keeps turning its event loop while they run. An interval timer on that loop records
// when it fires; the longest gap between two firings is how long the loop was held at once. Before
// the stages moved, that gap was the stages themselves (most of the job's `extract` timing); now
// it stays a small part of it, whatever the machine's speed.
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bigDeck } from '../helpers/big-deck.js';
import { postForm, upload, waitForJob } from '../helpers/documents.js';
import { DEFAULT_TENANT_ID, type Harness, startHarness } from '../helpers/harness.js';
import { INVOICE_TIMING_TEMPLATE } from '../../bench/lib/extraction-template.js';
import { longestHold, timingsOf } from '../helpers/event-loop.js';

const SLIDES = 200;
const logs: string[] = [];
let h: Harness;
let member: string;
let templateId: string;

beforeAll(async () => {
  const stream = new PassThrough();
  stream.on('data', (chunk: Buffer) => logs.push(...chunk.toString('utf8').split('\n').filter(Boolean)));
  h = await startHarness({}, { workers: 1, logStream: stream });
  member = (await h.seedUser(DEFAULT_TENANT_ID, 'member')).token!;
  const t = await h.request('POST', '/v1/templates', { token: await h.adminToken(), body: { name: 'invoice', json_schema: INVOICE_TIMING_TEMPLATE.json_schema } });
  expect(t.status, JSON.stringify(t.body)).toBe(201);
  templateId = t.body.id;
}, 60_000);
afterAll(() => h.close());

describe('extraction stage of a large document', () => {
  let jobId: string;
  let firstData: unknown;

  it('leaves the event loop turning on a first run', async () => {
    const created = await upload(h, member, { name: 'big.pptx', bytes: bigDeck(SLIDES) }, { processing_mode: 'extraction', template_id: templateId });
    expect(created.status).toBe(202);
    jobId = created.body.job_id;
    const run = await longestHold(() => waitForJob(h, member, jobId, undefined, 240_000));
    expect(run.value.status).toMatch(/^(completed|needs_review)$/);
    expect(run.value.result.extraction.template_id).toBe(templateId);
    expect(run.value.result.entities.length).toBeGreaterThan(SLIDES);
    firstData = run.value.result.extraction.data;
    const stage = timingsOf(logs, jobId).extract!;
    expect(run.holdMs, `longest hold ${Math.round(run.holdMs)} ms, extract stage ${stage} ms`).toBeLessThan(stage / 2);
  }, 300_000);

  it('leaves the event loop turning on a re-extraction of the stored canonical output', async () => {
    const again = await h.request('POST', `/v1/documents/${jobId}/reextract`, { token: member });
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    const run = await longestHold(() => waitForJob(h, member, jobId, undefined, 240_000));
    expect(run.value.result.engine).toMatchObject({ reused_canonical: true, pages_processed: SLIDES });
    expect(run.value.result.canonical.pages).toHaveLength(SLIDES);
    expect(run.value.result.extraction.data).toEqual(firstData);
    const stage = timingsOf(logs, jobId).extract!;
    expect(run.holdMs, `longest hold ${Math.round(run.holdMs)} ms, extract stage ${stage} ms`).toBeLessThan(stage / 2);
  }, 300_000);
});

describe('template test of a large document', () => {
  it('leaves the event loop turning while the template extracts (a member can send any document)', async () => {
    const run = await longestHold(() => postForm(h, `/v1/templates/${templateId}/test`, member, [{ field: 'file', file: { name: 'big.pptx', bytes: bigDeck(SLIDES) } }]));
    expect(run.value.status, JSON.stringify(run.value.body).slice(0, 500)).toBe(200);
    expect(run.value.body.source).toMatchObject({ kind: 'file', pages_processed: SLIDES });
    expect(run.value.body.entities.length).toBeGreaterThan(SLIDES);
    const stage = run.value.body.timings_ms.extraction as number;
    expect(run.holdMs, `longest hold ${Math.round(run.holdMs)} ms, extraction ${stage} ms`).toBeLessThan(stage / 2);
  }, 300_000);
});

