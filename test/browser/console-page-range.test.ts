// A page range past the document's end, through the console's upload form, against the real
// server, database and a worker: the API accepts the range (it cannot know the page count before
// the document is opened), the job fails, and the console says why in plain words where the person
// looks: beside the upload, in the job list and on the job screen.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, screenshot, signedInConsole } from '../helpers/browser.js';
import { data } from '../helpers/documents.js';
import { type Harness, startHarness } from '../helpers/harness.js';
import { ensureWebBuilt } from '../helpers/web-build.js';

// One page.
const AZURE = data('invoice2data/compare/AzureInterior.pdf');
const SAID = 'pages 5-9 asked for, but the document has 1 page. Reprocess the job with a page_range within page 1';

let h: Harness;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  await ensureWebBuilt();
  h = await startHarness({}, { workers: 1 });
  browser = await launchBrowser();
  page = await signedInConsole(browser, h.baseUrl);
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await h?.close();
});

describe('a page range past the end of the document', () => {
  it("shows the failed job's message beside its upload, in the job list and on the job screen", async () => {
    await page.getByLabel('Mode').selectOption('canonical');
    await page.getByLabel('Pages (optional)').fill('5-9');
    await page.getByLabel('Choose files to upload').setInputFiles([AZURE]);
    const upload = page.locator('ul[aria-label="Uploads"] li', { hasText: 'AzureInterior.pdf' });
    await upload.getByRole('link').waitFor();
    const jobId = (await upload.getByRole('link').textContent())!;

    // The list refreshes itself: the job fails, and its row says why, with the code on hover.
    const row = page.locator(`table[aria-label="Jobs"] tr[data-job-id="${jobId}"]`);
    const reason = row.locator('.failure');
    await expect.poll(() => reason.textContent(), { timeout: 60_000 }).toContain(SAID);
    expect(await reason.getAttribute('title')).toBe('invalid_page_range');
    expect(await upload.locator('.failure').textContent()).toContain(SAID);
    await screenshot(page, 'documents-page-range-failed');

    await upload.getByRole('link').click();
    const failure = page.locator('dl.facts dt', { hasText: /^Failure$/ }).locator('xpath=following-sibling::dd[1]');
    await expect.poll(() => failure.textContent()).toContain(SAID);
    // In words: the code stays on hover, not in front of the sentence.
    expect(await failure.textContent()).not.toContain('invalid_page_range');
    expect(await failure.locator('.failure').getAttribute('title')).toBe('invalid_page_range');
  }, 90_000);
});
