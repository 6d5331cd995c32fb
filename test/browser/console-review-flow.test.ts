// The console as an operations reviewer uses it, in a real browser against the real server,
// database and worker: a review sent back for processing is followed until its job settles again,
// and the review screen and the batch screen keep up with work that runs on.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiClient, apiClient } from '../helpers/api-client.js';
import { launchBrowser, screenshot } from '../helpers/browser.js';
import { data, upload, waitForJob } from '../helpers/documents.js';
import { ADMIN_EMAIL, ADMIN_PASSWORD, type Harness, startHarness } from '../helpers/harness.js';
import { ensureWebBuilt } from '../helpers/web-build.js';

let h: Harness;
let api: ApiClient;
let browser: Browser;
let page: Page;
let templateId: string;

/** Every field below the floor and a rule that fails: each job of this template waits for review. */
const SCHEMA = {
  type: 'object',
  properties: {
    invoice_number: { type: 'string' },
    total: { type: 'number', 'x-aliases': ['Total EUR', 'total amount'] },
    website: { type: 'string', description: 'web site url' },
    po_number: { type: 'string', description: 'purchase order number' },
  },
};

beforeAll(async () => {
  await ensureWebBuilt();
  h = await startHarness({}, { workers: 1 });
  api = apiClient(h.baseUrl, { token: await h.adminToken() });
  const t = await api.POST('/v1/templates', {
    body: {
      name: 'reviewed-invoice',
      json_schema: SCHEMA,
      review_thresholds: { confidence_floor: 1 },
      validation_rules: [{ kind: 'required', field: 'po_number', severity: 'error', message: 'The purchase order number is missing.' }],
    },
  });
  expect(t.response.status).toBe(201);
  templateId = t.data!.id;
  browser = await launchBrowser();
  page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  page.setDefaultTimeout(20_000);
  await page.goto(`${h.baseUrl}/app/`);
  await page.getByLabel('Email').fill(ADMIN_EMAIL);
  await page.getByLabel('Password').fill(ADMIN_PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Documents' }).waitFor();
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await h?.close();
});

/** A real file extracted with the template, waiting for review, and its open review. */
async function inReview(file: string) {
  const res = await upload(h, (await h.adminToken())!, data(file), { processing_mode: 'extraction', template_id: templateId });
  expect(res.status, JSON.stringify(res.body)).toBe(202);
  const job = await waitForJob(h, (await h.adminToken())!, res.body.job_id, ['needs_review', 'completed', 'failed', 'rejected'], 90_000);
  expect(job.status).toBe('needs_review');
  const reviews = await api.GET('/v1/reviews', { params: { query: { job_id: job.job_id } } });
  return { job, reviewId: reviews.data!.items[0]!.review_id };
}

describe('the review screen follows work that runs on', () => {
  it('shows the job of a review sent back for processing settle, and leads to the review its new run opens', async () => {
    const { job, reviewId } = await inReview('invoice2data/compare/QualityHosting.pdf');
    await page.goto(`${h.baseUrl}/app/reviews/${reviewId}`);
    await page.locator('figure.page-view img').waitFor();
    await page.getByRole('button', { name: 'Reprocess' }).click();
    await page.getByRole('status').filter({ hasText: 'Sent back for processing' }).waitFor();
    // No reload: the job runs again, settles in review, and the screen links its new review.
    const link = page.getByRole('link', { name: 'Open its new review' });
    await link.waitFor({ timeout: 90_000 });
    expect(await page.locator('.review .badge-needs_review').count()).toBeGreaterThan(0);
    const open = (await api.GET('/v1/reviews', { params: { query: { job_id: job.job_id, status: 'pending' } } })).data!.items;
    expect(open).toHaveLength(1);
    expect(await link.getAttribute('href')).toBe(`/app/reviews/${open[0]!.review_id}`);
    await screenshot(page, 'review-followed');
    await link.click();
    await page.locator('figure.page-view img').waitFor();
    await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe('field-0');
  }, 180_000);
});
