// The console says things a person can read and act on, in a real browser against the real server
// and database: a running job's pages, a review that cannot be opened, the queue's reasons, and who
// decided a review. The jobs and reviews are written straight into the database, in the states
// the pipeline leaves them in, so each screen is seen in exactly that state.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, screenshot, signedInConsole } from '../helpers/browser.js';
import { readData } from '../pipeline/data.js';
import { runCanonical, toCanonicalJson } from '../../src/pipeline/index.js';
import { DEFAULT_TENANT_ID } from '../../src/domain/tenants/bootstrap.js';
import { newId } from '../../src/lib/ids.js';
import { type Harness, startHarness } from '../helpers/harness.js';
import { ensureWebBuilt } from '../helpers/web-build.js';

let h: Harness;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  await ensureWebBuilt();
  h = await startHarness({}, { workers: 0 });
  browser = await launchBrowser();
  page = await signedInConsole(browser, h.baseUrl);
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await h?.close();
});

/** An extraction as the pipeline stores it: one field below the confidence floor. */
const EXTRACTION = {
  extraction: {
    template_id: null,
    template_version: null,
    data: { total: 12.5 },
    fields: { total: { value: 12.5, confidence: 0.4, evidence: [] } },
    validation: [],
    review_reasons: ['low_confidence:total'],
  },
};

async function insertJob(values: { status: string; page_count?: number | null; pages_processed?: number; result?: unknown; filename?: string; tenant?: string; failure?: [string, string] }): Promise<string> {
  const id = newId('job');
  await h.db
    .insertInto('jobs')
    .values({
      id,
      tenant_id: values.tenant ?? DEFAULT_TENANT_ID,
      ...(values.failure ? { failure_code: values.failure[0], failure_message: values.failure[1] } : {}),
      status: values.status,
      processing_mode: 'extraction',
      original_filename: values.filename ?? 'invoice.pdf',
      size_bytes: 1,
      sha256: 'a'.repeat(64),
      metadata: '{}',
      page_count: values.page_count ?? null,
      pages_processed: values.pages_processed ?? 0,
      ...(values.result ? { result: JSON.stringify(values.result) } : {}),
      // What the claim sets on a running job (a lease held by no worker of this test), and a settle on a finished one.
      ...(values.status === 'processing' ? { lease_owner: 'elsewhere', lease_expires_at: new Date(Date.now() + 3_600_000), started_at: new Date() } : {}),
      ...(values.status !== 'processing' && values.status !== 'queued' ? { finished_at: new Date() } : {}),
    } as never)
    .execute();
  return id;
}

async function insertReview(jobId: string, values: { status: string; reasons?: string[]; resolved_by?: string; note?: string; tenant?: string }): Promise<string> {
  const id = newId('rev');
  const decided = values.status !== 'pending' && values.status !== 'in_review';
  await h.db
    .insertInto('reviews')
    .values({
      id,
      tenant_id: values.tenant ?? DEFAULT_TENANT_ID,
      job_id: jobId,
      status: values.status,
      reasons: values.reasons ?? [],
      ...(decided ? { resolved_at: new Date(), resolved_by: values.resolved_by ?? null, resolution: values.status, resolution_note: values.note ?? null } : {}),
    } as never)
    .execute();
  return id;
}

const pagesFact = () => page.locator('dl.facts dt', { hasText: /^Pages$/ }).locator('xpath=following-sibling::dd[1]');

describe('the job screen', () => {
  it('says a running job is reading its pages until their count is known, then how far it got', async () => {
    const jobId = await insertJob({ status: 'processing' });
    await page.goto(`${h.baseUrl}/app/jobs/${jobId}`);
    await expect.poll(() => pagesFact().textContent()).toBe('reading pages…');
    await screenshot(page, 'job-reading-pages');
    // The count is known and a page is done: the screen (polling while the job runs) says so.
    await h.db.updateTable('jobs').set({ page_count: 3, pages_processed: 1 }).where('id', '=', jobId).execute();
    await expect.poll(() => pagesFact().textContent(), { timeout: 10_000 }).toBe('reading pages: 1 of 3');
    await h.db.updateTable('jobs').set({ status: 'completed', pages_processed: 3, finished_at: new Date() } as never).where('id', '=', jobId).execute();
    await expect.poll(() => pagesFact().textContent(), { timeout: 10_000 }).toBe('3 of 3');
  });

  it('offers Cancel on a running job until a cancel is asked, then says the job is stopping', async () => {
    const jobId = await insertJob({ status: 'processing' });
    await page.goto(`${h.baseUrl}/app/jobs/${jobId}`);
    const actions = page.getByLabel('Actions');
    const cancel = actions.getByRole('button', { name: 'Cancel', exact: true });
    await expect.poll(() => cancel.count()).toBe(1);
    await cancel.click();
    // The worker holding it (none in this test) would stop at its next checkpoint: no second Cancel meanwhile.
    await expect.poll(() => actions.textContent(), { timeout: 10_000 }).toContain('Stopping: the cancel was asked, and the job stops at its next step.');
    expect(await cancel.count()).toBe(0);
    expect((await h.db.selectFrom('jobs').select('cancel_requested').where('id', '=', jobId).executeTakeFirstOrThrow()).cancel_requested).toBe(true);
  });

  it('says why "Open its review" cannot open it, beside the button', async () => {
    const jobId = await insertJob({ status: 'needs_review', page_count: 1, pages_processed: 1, result: EXTRACTION });
    await page.goto(`${h.baseUrl}/app/jobs/${jobId}`);
    const open = page.getByRole('button', { name: 'Open its review' });
    const beside = page.locator('.open-review').getByRole('alert');
    // No open review (it was decided elsewhere meanwhile).
    await insertReview(jobId, { status: 'approved', resolved_by: 'usr_gone' });
    await open.click();
    await beside.filter({ hasText: 'This job has no open review any more' }).waitFor();
    await screenshot(page, 'job-open-review-refused');

    // The API answers an error: its message stands there too, and the screen stays.
    const reviewId = await insertReview(jobId, { status: 'pending', reasons: ['low_confidence:total'] });
    const list = (url: URL) => url.pathname === '/v1/reviews';
    await page.route(list, (route) => route.fulfill({ status: 503, contentType: 'application/json', body: JSON.stringify({ code: 'unavailable', detail: 'The review list is not available right now.' }) }));
    try {
      await open.click();
      await beside.filter({ hasText: 'The review list is not available right now.' }).waitFor();
      expect(page.url()).toBe(`${h.baseUrl}/app/jobs/${jobId}`);
    } finally {
      await page.unroute(list);
    }
    // Answered: the open review opens.
    await open.click();
    await expect.poll(() => page.url()).toBe(`${h.baseUrl}/app/reviews/${reviewId}`);
  });
});

describe('a slide without a page image', () => {
  it("draws a table cell's text at the top of its cell, at a size that fits the cell's width", async () => {
    // tbl-cell.pptx, slide 1: the first row is 143.6 pt tall (declared 0, its frame holds the rest), its cell 120 pt wide.
    const canonical = toCanonicalJson(await runCanonical(readData('pptx-python-pptx/files/tbl-cell.pptx')));
    const cell = canonical.pages[0]!.tables[0]!.cells.find((c) => c.text === 'having custom margins')!;
    expect(cell.bbox[3] - cell.bbox[1]).toBeGreaterThan(100);
    const jobId = await insertJob({ status: 'completed', page_count: 3, pages_processed: 3, result: { canonical }, filename: 'tbl-cell.pptx' });
    await page.goto(`${h.baseUrl}/app/jobs/${jobId}`);
    const svg = page.locator('figure.page-view svg');
    const text = svg.locator('text.page-text', { hasText: /^having custom margins$/ });
    await text.waitFor();
    const scale = (await svg.boundingBox())!.height / canonical.pages[0]!.height;
    const drawn = (await text.boundingBox())!;
    const top = (await svg.boundingBox())!.y + cell.bbox[1] * scale;
    const cellHeight = (cell.bbox[3] - cell.bbox[1]) * scale;
    // One line of text at the cell's top, not letters as tall as the cell squeezed to its width.
    expect(drawn.height).toBeLessThan(cellHeight * 0.25);
    expect(drawn.y).toBeGreaterThanOrEqual(top - 1);
    expect(drawn.y + drawn.height).toBeLessThan(top + cellHeight * 0.3);
    await text.scrollIntoViewIfNeeded();
    await screenshot(page, 'job-slide-table');
  });

  it("draws one table row's cells at one size, the smallest that fits each of them", async () => {
    // tbl-cell.pptx, slide 1, first row: four cells whose own widths would fit their texts at four sizes.
    const canonical = toCanonicalJson(await runCanonical(readData('pptx-python-pptx/files/tbl-cell.pptx')));
    const row = canonical.pages[0]!.tables[0]!.cells.filter((c) => c.row === 0 && c.text !== '');
    expect(row.map((c) => c.text)).toEqual(['having custom margins', 'vert anchor is inherited', 'vert anchor is top', 'vert anchor is bottom']);
    const jobId = await insertJob({ status: 'completed', page_count: 3, pages_processed: 3, result: { canonical }, filename: 'tbl-cell-row.pptx' });
    await page.goto(`${h.baseUrl}/app/jobs/${jobId}`);
    const svg = page.locator('figure.page-view svg');
    await svg.locator('text.page-text').first().waitFor();
    const drawn = await svg.locator('text.page-text').evaluateAll((texts) => texts.map((t) => ({ text: t.textContent, size: Number(t.getAttribute('font-size')), width: (t as SVGTextElement).getBBox().width })));
    const cells = row.map((c) => drawn.find((d) => d.text === c.text)!);
    // Each cell's own fit (three quarters of its height, at most its width at half an em a letter): not all the same.
    const fits = row.map((c) => Math.min((c.bbox[3] - c.bbox[1]) * 0.75, (c.bbox[2] - c.bbox[0]) / (c.text.length * 0.5)));
    expect(new Set(fits.map((f) => f.toFixed(2))).size).toBeGreaterThan(1);
    expect(cells.map((c) => c.size.toFixed(2))).toEqual(row.map(() => Math.min(...fits).toFixed(2)));
    // Drawn smaller than its own fit, a cell's text is not stretched across the cell.
    for (const [i, c] of cells.entries()) expect(c.width).toBeLessThanOrEqual(row[i]!.bbox[2] - row[i]!.bbox[0] + 0.5);
    expect(Math.min(...cells.map((c, i) => row[i]!.bbox[2] - row[i]!.bbox[0] - c.width))).toBeLessThan(0.5);
    expect(Math.max(...cells.map((c, i) => row[i]!.bbox[2] - row[i]!.bbox[0] - c.width))).toBeGreaterThan(5);
  });
});

describe('the review queue', () => {
  it('labels each reason in words, with its code on hover', async () => {
    // Every code the pipeline gives a review (src/pipeline/extract/decision.ts, src/models/extraction/finish.ts).
    const codes = ['low_confidence:total', 'low_agreement:invoice_number', 'validation:required:po_number', 'ungrounded:vendor.name', 'warn_count'];
    const jobId = await insertJob({ status: 'needs_review', page_count: 1, pages_processed: 1, result: EXTRACTION, filename: 'reasons.pdf' });
    await insertReview(jobId, { status: 'pending', reasons: codes });
    await page.goto(`${h.baseUrl}/app/reviews`);
    const reasons = page.locator('table[aria-label="Reviews"] tbody tr', { hasText: 'reasons.pdf' }).getByRole('list', { name: 'Reasons' }).getByRole('listitem');
    await expect.poll(() => reasons.count()).toBe(codes.length);
    expect(await reasons.allTextContents()).toEqual(['Low confidence: total', 'Engines disagree: invoice_number', 'po_number is required', 'Not found on the page: vendor.name', 'Several rule warnings']);
    expect(await reasons.evaluateAll((items) => items.map((li) => li.getAttribute('title')))).toEqual(codes);
    await screenshot(page, 'review-queue-reasons');
  });
});

describe('who decided a review', () => {
  it('names another person to an admin, says "another user" to a member (who may not read users), and names an API key', async () => {
    const dana = await h.seedUser(DEFAULT_TENANT_ID, 'member', { email: 'dana@quire.test' });
    await h.db.updateTable('users').set({ display_name: 'Dana Reviewer' }).where('id', '=', dana.id).execute();
    const jobId = await insertJob({ status: 'completed', page_count: 1, pages_processed: 1, result: EXTRACTION, filename: 'decided.pdf' });
    const byDana = await insertReview(jobId, { status: 'approved', resolved_by: dana.id, note: 'checked' });
    const decision = page.getByRole('status').filter({ hasText: 'Decided: approved' });

    await page.goto(`${h.baseUrl}/app/reviews/${byDana}`);
    await expect.poll(() => decision.textContent()).toContain('by Dana Reviewer (dana@quire.test)');
    expect(await decision.textContent()).not.toContain(dana.id);
    expect(await decision.locator('.person').getAttribute('title')).toBe(dana.id);
    await screenshot(page, 'review-decided-by-admin-view');

    // A tenant-wide key (the only kind a decision is recorded by: an own key records its owner) is named by its name, read from the tenant's key list.
    const key = await h.request('POST', '/v1/admin/api-keys', { token: await h.adminToken(), body: { name: 'console-ingest-bot' } });
    expect(key.status).toBe(201);
    const byKey = await insertReview(jobId, { status: 'approved', resolved_by: key.body.public_id });
    await page.goto(`${h.baseUrl}/app/reviews/${byKey}`);
    await expect.poll(() => decision.textContent()).toContain('by the API key “console-ingest-bot”');
    expect(await decision.locator('.person').getAttribute('title')).toBe(key.body.public_id);
    // A key the list does not hold (deleted with its tenant's data) is still an API key.
    const byGoneKey = await insertReview(jobId, { status: 'approved', resolved_by: 'key_01JZZZZZZZZZZZZZZZZZZZZZZZ' });
    await page.goto(`${h.baseUrl}/app/reviews/${byGoneKey}`);
    await expect.poll(() => decision.textContent()).toContain('by an API key');

    // A member: GET /v1/admin/users/{id} answers 403, so the screen does not ask and says "another user".
    const { token } = await h.seedUser(DEFAULT_TENANT_ID, 'member', { email: 'plain.reader@quire.test' });
    const member = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    try {
      member.setDefaultTimeout(20_000);
      const asked: string[] = [];
      member.on('request', (r) => r.url().includes('/v1/admin/') && asked.push(r.url()));
      await member.goto(`${h.baseUrl}/app/`);
      await member.evaluate((tk) => localStorage.setItem('quire.session', JSON.stringify({ token: tk, tenant: null })), token);
      await member.goto(`${h.baseUrl}/app/reviews/${byDana}`);
      const seen = member.getByRole('status').filter({ hasText: 'Decided: approved' });
      await expect.poll(() => seen.textContent()).toContain('by another user');
      expect(await seen.textContent()).not.toContain(dana.id);
      expect(await seen.locator('.person').getAttribute('title')).toBe(dana.id);
      // Nor may a member read the tenant's keys: the key stays "an API key".
      await member.goto(`${h.baseUrl}/app/reviews/${byKey}`);
      await expect.poll(() => seen.textContent()).toContain('by an API key');
      expect(asked).toEqual([]);
      await screenshot(member, 'review-decided-by-member-view');
    } finally {
      await member.close();
    }
  });
});

describe('who decided a review in another tenant', () => {
  it('names a platform admin from outside the tenant to a platform admin acting in it', async () => {
    const tenant = 'console-h6-elsewhere';
    await h.seedTenant(tenant, 'Console elsewhere');
    // Another platform admin (home: the default tenant) decided a review in that tenant.
    const pat = await h.seedUser(DEFAULT_TENANT_ID, 'platform_admin', { email: 'console-pat@quire.test' });
    await h.db.updateTable('users').set({ display_name: 'Pat Operator' }).where('id', '=', pat.id).execute();
    const jobId = await insertJob({ status: 'completed', page_count: 1, pages_processed: 1, result: EXTRACTION, filename: 'elsewhere.pdf', tenant });
    const reviewId = await insertReview(jobId, { status: 'approved', resolved_by: pat.id, tenant });
    const viewer = await signedInConsole(browser, h.baseUrl);
    try {
      await viewer.getByLabel('Tenant').selectOption(tenant);
      await viewer.getByRole('heading', { name: 'Documents' }).waitFor();
      await viewer.goto(`${h.baseUrl}/app/reviews/${reviewId}`);
      const decision = viewer.getByRole('status').filter({ hasText: 'Decided: approved' });
      await expect.poll(() => decision.textContent()).toContain('by Pat Operator (console-pat@quire.test)');
      expect(await decision.locator('.person').getAttribute('title')).toBe(pat.id);
      await screenshot(viewer, 'review-decided-by-platform-admin');
    } finally {
      await viewer.close();
    }
  });
});
