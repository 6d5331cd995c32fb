// The console as an operations reviewer uses it, in a real browser against the real server,
// database and worker: a review sent back for processing is followed until its job settles again,
// and the review screen and the batch screen keep up with work that runs on.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiClient, apiClient } from '../helpers/api-client.js';
import { launchBrowser, screenshot, signIn, signedInConsole } from '../helpers/browser.js';
import { data, upload, waitForJob } from '../helpers/documents.js';
import { DEFAULT_TENANT_ID } from '../../src/domain/tenants/bootstrap.js';
import { newId } from '../../src/lib/ids.js';
import { ADMIN_EMAIL, type Harness, startHarness } from '../helpers/harness.js';
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
    currency: { type: 'string', enum: ['EUR', 'USD'] },
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
  page = await signedInConsole(browser, h.baseUrl);
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await h?.close();
});

const fieldOf = (path: string) => page.locator('.fields .field', { has: page.locator('label', { hasText: new RegExp(`^${path}$`) }) });
const fieldInput = (path: string) => fieldOf(path).locator('input, textarea');

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
    // Who decided: the person signed in reads "you", not their user id.
    await page.getByRole('status').filter({ hasText: `Decided: reprocessed by you (${ADMIN_EMAIL})` }).waitFor();
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

describe('the review keys on a Mac', () => {
  it('Option+N (a dead key there, not "n") moves to the next pending review', async () => {
    const first = await inReview('invoice2data/compare/QualityHosting.pdf');
    const second = await inReview('invoice2data/compare/QualityHosting.pdf');
    await page.goto(`${h.baseUrl}/app/reviews/${second.reviewId}`);
    await page.locator('figure.page-view img').waitFor();
    // What a Mac sends for Option+N: key "Dead" (the tilde to come), code "KeyN", altKey.
    await page.evaluate(() => window.dispatchEvent(new KeyboardEvent('keydown', { key: 'Dead', code: 'KeyN', altKey: true, bubbles: true })));
    // The other one waiting (every review opened before this one was opened by its test).
    await expect.poll(() => page.url()).toBe(`${h.baseUrl}/app/reviews/${first.reviewId}`);
    await page.locator('figure.page-view img').waitFor();
  }, 120_000);
});

describe('a refused save', () => {
  it('says plainly when the server does not answer, or something in front of it answers with a page; the review stays open', async () => {
    const { reviewId } = await inReview('invoice2data/compare/QualityHosting.pdf');
    await page.goto(`${h.baseUrl}/app/reviews/${reviewId}`);
    await page.locator('figure.page-view img').waitFor();
    const approve = '**/v1/reviews/*/approve';
    await page.route(approve, (route) => route.abort('connectionrefused'));
    try {
      await page.keyboard.press('Control+Enter');
      await page.getByRole('alert').filter({ hasText: 'The server did not answer' }).waitFor();
      expect(await page.getByRole('alert').first().textContent()).not.toContain('Failed to fetch');
      await page.unroute(approve);
      // A proxy's own page (502 Bad Gateway) is not shown as raw HTML.
      await page.route(approve, (route) => route.fulfill({ status: 502, contentType: 'text/html', body: '<html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway</h1></center><hr><center>nginx</center></body></html>' }));
      await page.keyboard.press('Control+Enter');
      const proxy = page.getByRole('alert').filter({ hasText: 'error page (502 Bad Gateway)' });
      await proxy.waitFor();
      expect(await proxy.textContent()).not.toContain('<');
    } finally {
      await page.unroute(approve);
    }
    const review = await api.GET('/v1/reviews/{review_id}', { params: { path: { review_id: reviewId } } });
    expect(review.data?.review.status).toBe('in_review');
    // The server back: the same key approves.
    await page.keyboard.press('Control+Enter');
    await page.getByRole('status').filter({ hasText: 'The job is completed' }).waitFor();
  }, 120_000);

  it('shows each message under the field it names, in view, with the focus there; the review stays open', async () => {
    const { reviewId } = await inReview('invoice2data/compare/QualityHosting.pdf');
    // A short window: the message at the top of the screen is out of view when the field is not.
    await page.setViewportSize({ width: 1280, height: 420 });
    try {
      await page.goto(`${h.baseUrl}/app/reviews/${reviewId}`);
      await page.locator('figure.page-view img').waitFor();
      const total = fieldInput('total');
      await total.focus();
      await total.fill('abc');
      await page.keyboard.press('Control+Enter');
      const message = fieldOf('total').locator('.field-error');
      await message.waitFor();
      expect(await message.textContent()).toContain('reads one way only');
      const box = (await message.boundingBox())!;
      expect(box.y).toBeGreaterThanOrEqual(0);
      expect(box.y + box.height).toBeLessThanOrEqual(420);
      expect(await total.getAttribute('aria-invalid')).toBe('true');
      expect(await page.evaluate(() => document.activeElement?.closest('.field')?.querySelector('label')?.textContent)).toBe('total');

      // The API refuses a value outside the field's enum (422): the item stands under that field.
      await total.fill('34,73');
      await fieldInput('currency').fill('GBP');
      await fieldInput('invoice_number').focus();
      await page.keyboard.press('Control+Enter');
      const refused = fieldOf('currency').locator('.field-error');
      await refused.waitFor();
      expect(await page.getByRole('alert').first().textContent()).toContain('patch.currency');
      expect(await page.evaluate(() => document.activeElement?.closest('.field')?.querySelector('label')?.textContent)).toBe('currency');
      expect(await fieldOf('total').locator('.field-error').count()).toBe(0);
      const review = await api.GET('/v1/reviews/{review_id}', { params: { path: { review_id: reviewId } } });
      expect(review.data?.review.status).toBe('in_review');
    } finally {
      await page.setViewportSize({ width: 1280, height: 800 });
    }
  }, 120_000);
});

describe('a document without page images', () => {
  it("draws a slide's words where the layout puts them, with the evidence box on its word", async () => {
    const { job, reviewId } = await inReview('pptx-python-pptx/files/txt-text.pptx');
    const fields = (job.result as { extraction: { fields: Record<string, { value: unknown; evidence?: { page: number; text: string }[] }> } }).extraction.fields;
    expect(fields.website).toMatchObject({ value: 'yahoo.com', evidence: [{ page: 1, text: 'yahoo.com' }] });
    expect((job.artifacts as { kind: string }[] | undefined)?.some((a) => a.kind === 'page_image')).toBe(false);
    await page.goto(`${h.baseUrl}/app/reviews/${reviewId}`);
    await page.getByRole('heading', { name: /Review: txt-text/ }).waitFor();
    const website = page.locator('.fields .field', { has: page.locator('label', { hasText: /^website$/ }) }).locator('input');
    await website.focus();
    const word = page.locator('.page-side svg text', { hasText: /^yahoo\.com$/ });
    const mark = page.locator('.page-side svg rect.box-highlight');
    await word.waitFor();
    await mark.waitFor();
    // The box covers the drawn word.
    const [w, m] = [(await word.boundingBox())!, (await mark.boundingBox())!];
    expect(w.width).toBeGreaterThan(20);
    expect(w.x).toBeGreaterThanOrEqual(m.x - 1);
    expect(w.x + w.width).toBeLessThanOrEqual(m.x + m.width + 1);
    expect(w.y).toBeGreaterThanOrEqual(m.y - 1);
    expect(w.y + w.height).toBeLessThanOrEqual(m.y + m.height + 1);
    expect(await page.locator('.page-side').textContent()).toContain('No page image for this page');
    // A drawn word is clicked into the focused field like a word on a page image.
    await website.fill('');
    await page.locator('.page-side svg rect.word', { has: page.locator('title', { hasText: /^Foo$/ }) }).click();
    expect(await website.inputValue()).toBe('Foo');
    await screenshot(page, 'review-slide');
  }, 120_000);
});

describe('the review screen when the session ends', () => {
  it('keeps the unsaved edits through signing in again, saves them, and drops them on sign-out', async () => {
    const { job, reviewId } = await inReview('invoice2data/compare/QualityHosting.pdf');
    await page.goto(`${h.baseUrl}/app/reviews/${reviewId}`);
    await page.locator('figure.page-view img').waitFor();
    await fieldInput('po_number').fill('PO-4711');
    await page.getByLabel('Note').fill('PO from the order desk');
    // The session is revoked elsewhere (an admin, another tab); the save meets the 401.
    const token = await page.evaluate(() => JSON.parse(localStorage.getItem('quire.session')!).token as string);
    const mine = apiClient(h.baseUrl, { token });
    const current = (await mine.GET('/v1/auth/sessions')).data!.items.find((s) => s.current)!;
    expect((await mine.POST('/v1/auth/sessions/{session_id}/revoke', { params: { path: { session_id: current.session_id } } })).response.status).toBe(200);
    await page.keyboard.press('Control+Enter');
    await page.getByRole('status').filter({ hasText: 'Your session ended' }).waitFor();
    await signIn(page);
    // Back on the review, the edit and the note are where they were.
    await page.getByRole('status').filter({ hasText: 'unsaved edits to this review were kept' }).waitFor();
    expect(await fieldInput('po_number').inputValue()).toBe('PO-4711');
    expect(await page.getByLabel('Note').inputValue()).toBe('PO from the order desk');
    await page.keyboard.press('Control+Enter');
    await page.getByRole('status').filter({ hasText: 'The job is completed' }).waitFor();
    const stored = await api.GET('/v1/documents/{job_id}', { params: { path: { job_id: job.job_id } } });
    expect((stored.data?.result as { extraction: { data: Record<string, unknown> } }).extraction.data.po_number).toBe('PO-4711');
    const review = await api.GET('/v1/reviews/{review_id}', { params: { path: { review_id: reviewId } } });
    expect(review.data?.review).toMatchObject({ status: 'overridden', resolution_note: 'PO from the order desk' });
    // Saved: nothing is kept for this review any more.
    expect(await page.evaluate((id) => sessionStorage.getItem(`quire.review-draft.${id}`), reviewId)).toBeNull();

    // Unsaved edits of another review are dropped by signing out: the next person does not find them.
    const other = await inReview('invoice2data/compare/QualityHosting.pdf');
    await page.goto(`${h.baseUrl}/app/reviews/${other.reviewId}`);
    await page.locator('figure.page-view img').waitFor();
    await fieldInput('po_number').fill('left unsaved');
    await expect.poll(() => page.evaluate((id) => sessionStorage.getItem(`quire.review-draft.${id}`), other.reviewId)).toContain('left unsaved');
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    expect(await page.evaluate(() => Object.keys(sessionStorage).filter((k) => k.startsWith('quire.review-draft.')))).toEqual([]);
    await signIn(page);
    await page.getByRole('heading', { name: 'Documents' }).waitFor();
    await page.goto(`${h.baseUrl}/app/reviews/${other.reviewId}`);
    await page.locator('figure.page-view img').waitFor();
    expect(await fieldInput('po_number').inputValue()).toBe('');
  }, 180_000);
});

describe('a template test on a document of two pages', () => {
  it("shows each page's evidence boxes, and a field's own page and boxes on asking", async () => {
    const res = await upload(h, (await h.adminToken())!, data('invoice2data/compare/QualityHosting.pdf'), { processing_mode: 'canonical' });
    expect(res.status).toBe(202);
    const job = await waitForJob(h, (await h.adminToken())!, res.body.job_id, ['completed', 'failed'], 60_000);
    expect(job.status).toBe('completed');
    // What the test answers: the total is found on page 2, other fields on page 1.
    const tested = await api.POST('/v1/templates/{template_id}/test', { params: { path: { template_id: templateId } }, body: { job_id: job.job_id } as never });
    const fields = (tested.data?.extraction as unknown as { fields: Record<string, { evidence: { page: number }[] }> }).fields;
    expect(fields.total!.evidence.map((e) => e.page)).toEqual([2]);
    expect(fields.invoice_number!.evidence[0]!.page).toBe(1);

    await page.goto(`${h.baseUrl}/app/templates/${templateId}`);
    await page.getByLabel('or a processed job').selectOption({ label: 'QualityHosting.pdf' });
    await page.getByRole('button', { name: 'Run test' }).click();
    const result = page.getByRole('region', { name: 'Test result' });
    const view = result.locator('figure.page-view');
    await view.locator('img').waitFor();
    expect(await view.getAttribute('data-page')).toBe('1');
    // Page 2 has a box of its own, and the total's Show goes there and highlights it.
    await result.getByRole('navigation', { name: 'Pages of the test' }).getByRole('button', { name: /^Page 2 \(\d+ box/ }).waitFor();
    await result.getByRole('button', { name: 'Show total on page 2' }).click();
    await expect.poll(() => view.getAttribute('data-page')).toBe('2');
    expect(await view.locator('rect.box-highlight').count()).toBe(1);
    expect(await view.locator('rect.box-mark').count()).toBeGreaterThan(0);
    await result.getByRole('button', { name: /^Page 1/ }).click();
    await expect.poll(() => view.getAttribute('data-page')).toBe('1');
    expect(await view.locator('rect.box-highlight').count()).toBe(0);
  }, 120_000);
});

describe('the batch screen', () => {
  it("pages a batch's jobs beyond what one answer holds, and filters them by status", async () => {
    // A batch of 205 files (a batch takes up to 500), its jobs settled, straight in the database.
    const batchId = newId('bat');
    await h.db.insertInto('batches').values({ id: batchId, tenant_id: DEFAULT_TENANT_ID, name: 'month end', processing_mode: 'canonical', status: 'completed' }).execute();
    const at = (i: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, i));
    await h.db
      .insertInto('jobs')
      .values(
        Array.from({ length: 205 }, (_, i) => ({
          id: newId('job'),
          tenant_id: DEFAULT_TENANT_ID,
          batch_id: batchId,
          status: i % 41 === 0 ? 'failed' : 'completed',
          processing_mode: 'canonical',
          original_filename: `scan-${String(i).padStart(3, '0')}.pdf`,
          size_bytes: 1,
          sha256: 'a'.repeat(64),
          metadata: '{}',
          created_at: at(i),
          finished_at: at(i),
        })) as never,
      )
      .execute();
    await page.goto(`${h.baseUrl}/app/batches/${batchId}`);
    await page.getByRole('heading', { name: 'month end' }).waitFor();
    const rows = page.locator('table[aria-label="Jobs of the batch"] tbody tr');
    const pages = page.getByRole('group', { name: "Pages of the batch's jobs" });
    await expect.poll(() => rows.count()).toBe(100);
    await pages.getByRole('button', { name: 'Older' }).click();
    await expect.poll(() => rows.first().textContent()).toContain('scan-104.pdf');
    await pages.getByRole('button', { name: 'Older' }).click();
    await expect.poll(() => rows.count()).toBe(5);
    // The oldest file, the first of the batch, is reachable.
    await page.locator('table[aria-label="Jobs of the batch"] tbody tr', { hasText: 'scan-000.pdf' }).waitFor();
    expect(await pages.getByRole('button', { name: 'Older' }).count()).toBe(0);
    await pages.getByRole('button', { name: 'Newest' }).click();
    await expect.poll(() => rows.first().textContent()).toContain('scan-204.pdf');
    // The failed ones (5 of 205) on their own.
    await page.getByLabel('Status').selectOption('failed');
    await expect.poll(() => rows.count()).toBe(5);
    expect(await page.locator('table[aria-label="Jobs of the batch"] .badge-completed').count()).toBe(0);
    await page.getByLabel('Status').selectOption('needs_review');
    await page.getByText('No job of this batch has this status.').waitFor();
  });

  it('stops asking again for a job or a batch that is not found', async () => {
    const asked = { job: 0, batch: 0 };
    const jobId = newId('job');
    const batchId = newId('bat');
    const count = (request: { url(): string }) => {
      if (request.url().endsWith(`/v1/documents/${jobId}`)) asked.job++;
      if (request.url().endsWith(`/v1/batches/${batchId}`)) asked.batch++;
    };
    page.on('request', count);
    try {
      await page.goto(`${h.baseUrl}/app/jobs/${jobId}`);
      await page.getByRole('alert').waitFor();
      await page.goto(`${h.baseUrl}/app/batches/${batchId}`);
      await page.getByRole('alert').first().waitFor();
      // Both screens poll every 1.5 to 2 s while their item runs: a few intervals of quiet.
      await page.waitForTimeout(5_000);
    } finally {
      page.off('request', count);
    }
    expect(asked).toEqual({ job: 1, batch: 1 });
  });
});
