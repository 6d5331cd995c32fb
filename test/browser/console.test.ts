// The web console in a real browser (Debian's chromium via playwright-core) against the real
// server, database and workers: sign in, upload real invoices, watch them settle, open a job's
// page with its layout boxes, review with the keyboard, build and test a template, and change and
// reset a policy value. Each test saves a screenshot of its main screen.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiClient, apiClient } from '../helpers/api-client.js';
import { launchBrowser, screenshot, signIn } from '../helpers/browser.js';
import { data, upload, waitFor, waitForJob } from '../helpers/documents.js';
import { ADMIN_EMAIL, ADMIN_PASSWORD, type Harness, startHarness } from '../helpers/harness.js';
import { ensureWebBuilt } from '../helpers/web-build.js';

const AZURE = data('invoice2data/compare/AzureInterior.pdf');
const CAMELOT = data('invoice2data/files/camelot-example.pdf');

let h: Harness;
let api: ApiClient;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  await ensureWebBuilt();
  h = await startHarness({}, { workers: 1 });
  api = apiClient(h.baseUrl, { token: await h.adminToken() });
  // A template whose rule fails on this invoice, so its job waits for review.
  const strict = await api.POST('/v1/templates', {
    body: {
      name: 'strict-invoice',
      json_schema: { type: 'object', properties: { invoice_number: { type: 'string' }, total: { type: 'number', 'x-aliases': ['amount', 'total amount'] }, po_number: { type: 'string', description: 'purchase order number' } } },
      validation_rules: [{ kind: 'required', field: 'po_number', severity: 'error', message: 'The purchase order number is missing.' }],
    },
  });
  expect(strict.response.status).toBe(201);
  browser = await launchBrowser();
  page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  page.setDefaultTimeout(20_000);
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await h?.close();
});

const jobRow = (name: string) => page.locator('table[aria-label="Jobs"] tbody tr', { hasText: name });

async function jobsNamed(name: string) {
  const list = await api.GET('/v1/documents', { params: { query: { q: name } } });
  return list.data?.items ?? [];
}

describe('the web console', () => {
  it('signs in', async () => {
    await page.goto(`${h.baseUrl}/app/`);
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await screenshot(page, 'sign-in');
    await page.getByLabel('Email').fill(ADMIN_EMAIL);
    await page.getByLabel('Password').fill('not the password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toMatch(/\S/);
    await page.getByLabel('Password').fill(ADMIN_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Documents' }).waitFor();
    expect(await page.getByRole('navigation', { name: 'Main' }).textContent()).toContain(ADMIN_EMAIL);
  });

  it('uploads a real invoice with its template chosen up front, with per-file progress', async () => {
    await page.getByLabel('Template').selectOption({ label: 'strict-invoice' });
    await page.getByLabel('Mode').selectOption('extraction');
    await page.getByLabel('Choose files to upload').setInputFiles([AZURE]);
    const row = page.locator('ul[aria-label="Uploads"] li', { hasText: 'AzureInterior.pdf' });
    await row.getByRole('link').waitFor();
    expect(await row.locator('progress').getAttribute('value')).toBe('1');
    const [job] = await jobsNamed('AzureInterior');
    expect(job).toMatchObject({ original_filename: 'AzureInterior.pdf', processing_mode: 'extraction' });
    expect(job!.template_id).toBeTruthy();
  });

  it('watches jobs settle in the live list', async () => {
    await page.getByLabel('Template').selectOption({ label: 'Auto-classify' });
    await page.getByLabel('Mode').selectOption('canonical');
    await page.getByLabel('Choose files to upload').setInputFiles([CAMELOT]);
    // The list polls: no reload, the statuses change on their own.
    await jobRow('camelot-example.pdf').locator('.badge-completed').waitFor({ timeout: 60_000 });
    await jobRow('AzureInterior.pdf').locator('.badge-needs_review').waitFor({ timeout: 60_000 });
    await page.getByLabel('Status').selectOption('completed');
    await expect.poll(() => page.locator('table[aria-label="Jobs"] tbody tr').count()).toBe(1);
    await page.getByLabel('Status').selectOption('');
    await page.getByLabel('Search').fill('camelot');
    await expect.poll(() => page.locator('table[aria-label="Jobs"] tbody tr').count()).toBe(1);
    await page.getByLabel('Search').fill('');
    await screenshot(page, 'documents');
  }, 90_000);

  it('opens a job and finds the page image with the layout boxes over it', async () => {
    await jobRow('camelot-example.pdf').getByRole('link').click();
    await page.getByRole('heading', { name: 'camelot-example.pdf' }).waitFor();
    const image = page.locator('figure.page-view img');
    await image.waitFor();
    // The page image is drawn on its first download: wait for it as a user would.
    await expect.poll(() => image.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth), { timeout: 20_000 }).toBeGreaterThan(100);
    const boxes = page.locator('figure.page-view svg rect.box');
    expect(await boxes.count()).toBeGreaterThan(3);
    expect(await page.locator('figure.page-view svg rect.box-table').count()).toBeGreaterThan(0);
    // The boxes sit on the image: the overlay covers it exactly.
    const [img, svg] = await Promise.all([image.boundingBox(), page.locator('figure.page-view svg').boundingBox()]);
    expect(svg).toEqual(img);
    expect(await page.getByRole('button', { name: 'Reprocess' }).isVisible()).toBe(true);
    expect(await page.locator('ul.artifacts li').count()).toBeGreaterThan(1);
    await screenshot(page, 'job-detail');
  });

  it('goes through a review with the keyboard: edit one field, accept, and the job is completed', async () => {
    await page.getByRole('link', { name: 'Reviews' }).click();
    await page.locator('table[aria-label="Reviews"] tbody tr', { hasText: 'AzureInterior.pdf' }).getByRole('link').click();
    await page.getByRole('heading', { name: /Review: AzureInterior/ }).waitFor();
    // The riskiest field comes first, with its reason, and has the focus.
    const first = page.locator('.fields .field').first();
    expect(await first.locator('label').textContent()).toBe('po_number');
    expect(await first.locator('.reasons').textContent()).toContain('purchase order number is missing');
    await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe('field-0');
    // Clicking a field shows its evidence on the page.
    await page.locator('#field-1').focus();
    await page.locator('figure.page-view img').waitFor();
    await page.locator('svg rect.box-highlight').waitFor();
    await screenshot(page, 'review');
    await page.keyboard.press('Shift+Enter');
    await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe('field-0');
    // A word clicked on the page fills the focused field (and the focus stays in it).
    await page.locator('svg rect.word', { has: page.locator('title', { hasText: /^CUSTREF123$/ }) }).click();
    expect(await page.locator('#field-0').inputValue()).toBe('CUSTREF123');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('field-0');
    await page.keyboard.press('Control+A');
    await page.keyboard.type('PO-4711');
    // A click on the highlighted evidence reaches the word under it (the highlight does not swallow it).
    const total = page.locator('.fields .field', { has: page.locator('label', { hasText: /^total$/ }) }).locator('input');
    await total.focus();
    const box = (await page.locator('svg rect.box-highlight').boundingBox())!;
    await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
    expect(await total.inputValue()).toMatch(/\d/);
    expect(await page.evaluate(() => document.activeElement?.closest('.field')?.querySelector('label')?.textContent)).toBe('total');
    // A total written with a decimal comma and thousands dots is read as such; one that reads two ways is refused.
    await total.fill('1,234');
    await page.keyboard.press('Control+Enter');
    await page.getByRole('alert').filter({ hasText: 'reads one way only' }).waitFor();
    await total.fill('1.234,50');
    await page.keyboard.press('Control+Enter');
    await page.getByRole('status').filter({ hasText: 'The job is completed' }).waitFor();
    await page.locator('.badge-completed').first().waitFor();
    const [job] = await jobsNamed('AzureInterior');
    const stored = await api.GET('/v1/documents/{job_id}', { params: { path: { job_id: job!.job_id } } });
    expect(stored.data?.status).toBe('completed');
    expect((stored.data?.result as { extraction: { data: Record<string, unknown> } }).extraction.data.po_number).toBe('PO-4711');
    expect((stored.data?.result as { extraction: { data: Record<string, unknown> } }).extraction.data.total).toBe(1234.5);
    // Saved, the fields show what is stored, not what was typed.
    await expect.poll(() => total.inputValue()).toBe('1234.5');
  }, 60_000);

  it('creates a template with one rule and tests it on a processed job', async () => {
    await page.getByRole('link', { name: 'Templates' }).click();
    await page.getByRole('link', { name: 'New template' }).click();
    await page.getByRole('heading', { name: 'New template' }).waitFor();
    await page.getByLabel('Name', { exact: true }).fill('browser-invoice');
    await page.getByLabel('Field 1 name').fill('invoice_number');
    await page.getByRole('button', { name: 'Add field' }).click();
    await page.getByLabel('Field 2 name').fill('total');
    await page.getByLabel('Field 2 type').selectOption('number');
    await page.getByRole('button', { name: 'Add rule' }).click();
    await page.getByLabel('Rule 1 kind').selectOption('required');
    await page.getByLabel('Rule 1 field').fill('invoice_number');
    await page.getByLabel('Rule 1 params').fill('');
    await page.getByLabel('Rule 1 message').fill('Every invoice has a number.');
    await page.getByRole('button', { name: 'Create template' }).click();
    await page.getByRole('heading', { name: 'Template browser-invoice' }).waitFor();
    const list = await api.GET('/v1/templates', { params: { query: { limit: 50 } } });
    const created = list.data!.items.find((t) => t.name === 'browser-invoice')!;
    expect(created.validation_rules).toEqual([{ kind: 'required', field: 'invoice_number', severity: 'error', message: 'Every invoice has a number.' }]);
    expect((created.json_schema as { properties: object }).properties).toEqual({ invoice_number: { type: 'string' }, total: { type: 'number' } });

    await page.getByLabel('or a processed job').selectOption({ label: 'AzureInterior.pdf' });
    await page.getByRole('button', { name: 'Run test' }).click();
    const result = page.getByRole('region', { name: 'Test result' });
    await result.waitFor({ timeout: 30_000 });
    expect(await result.textContent()).toContain('INV/2023/03/0008');
    // The result is drawn on the tested job's page: one box per field found there.
    await result.locator('figure.page-view img').waitFor();
    expect(await result.locator('svg rect.box-mark').count()).toBe(2);
    await result.getByRole('table', { name: 'Test fields' }).scrollIntoViewIfNeeded();
    await page.evaluate(() => window.scrollBy(0, 200));
    await screenshot(page, 'template-editor');

    // A second version, and the difference between the two.
    await page.getByLabel('Rule 1 severity').selectOption('warn');
    await page.getByRole('button', { name: 'Save as new version' }).click();
    await page.getByText('version 2').waitFor();
    const diff = page.getByLabel('Differences');
    await diff.waitFor();
    expect(await diff.locator('.diff-removed').allTextContents()).toEqual([expect.stringContaining('"severity": "error"')]);
    expect(await diff.locator('.diff-added').allTextContents()).toEqual([expect.stringContaining('"severity": "warn"')]);
  }, 60_000);

  it('saves a template it cannot show every detail of exactly as it was, but for the version', async () => {
    const json_schema = {
      type: 'object',
      additionalProperties: false,
      properties: {
        total: { type: 'number' },
        amount_paid: { type: 'number' },
        subtotal: { type: 'number' },
        tax: { type: 'number' },
        iban: { type: ['string', 'null'] },
        email: { type: 'string', format: 'email' },
        issued_at: { type: 'string', format: 'date-time' },
        lines: { type: 'array', items: { type: 'object', properties: { amount: { type: 'number' } } } },
      },
    };
    const validation_rules = [
      { kind: 'equals', fields: ['total', 'amount_paid'], severity: 'error' },
      { kind: 'arithmetic', params: { expression: 'subtotal + tax = total' }, severity: 'warn', name: 'adds-up' },
      { kind: 'sum', field: 'total', params: { items: 'lines[].amount' }, severity: 'error', on_fail: 'reject' },
    ];
    const made = await api.POST('/v1/templates', { body: { name: 'kept-as-is', json_schema, validation_rules } });
    expect(made.response.status).toBe(201);
    await page.goto(`${h.baseUrl}/app/templates/${made.data!.id}`);
    await page.getByRole('heading', { name: 'Template kept-as-is' }).waitFor();
    await page.getByRole('button', { name: 'Save as new version' }).click();
    await page.getByText('version 2').waitFor();
    const saved = await api.GET('/v1/templates/{template_id}', { params: { path: { template_id: made.data!.id } } });
    expect(saved.data).toMatchObject({ version: 2, json_schema, validation_rules });
  }, 60_000);

  it('changes a policy value and resets it to inherit', async () => {
    await page.getByRole('link', { name: 'Policy' }).click();
    await page.getByLabel('Filter settings').fill('pdf_max_pages');
    const row = page.locator('tr[data-setting="pdf_max_pages"]');
    expect(await row.locator('.source').textContent()).toBe('platform');
    await row.getByRole('textbox', { name: 'pdf_max_pages' }).fill('42');
    await row.getByRole('button', { name: 'Save pdf_max_pages' }).click();
    await row.locator('.source-tenant').waitFor();
    const changed = await api.GET('/v1/admin/tenant-policy/{tenant_id}', { params: { path: { tenant_id: 'default' } } });
    expect(changed.data?.fields.pdf_max_pages).toEqual({ value: 42, source: 'tenant' });
    // A typo or an empty box is refused, not sent as "inherit".
    for (const typo of ['4O', '']) {
      await row.getByRole('textbox', { name: 'pdf_max_pages' }).fill(typo);
      await row.getByRole('button', { name: 'Save pdf_max_pages' }).click();
      await page.getByRole('alert').filter({ hasText: 'pdf_max_pages' }).waitFor();
    }
    const kept = await api.GET('/v1/admin/tenant-policy/{tenant_id}', { params: { path: { tenant_id: 'default' } } });
    expect(kept.data?.fields.pdf_max_pages).toEqual({ value: 42, source: 'tenant' });
    await screenshot(page, 'policy');
    await row.getByRole('button', { name: 'Reset pdf_max_pages to inherit' }).click();
    await row.locator('.source-platform').waitFor();
    const reset = await api.GET('/v1/admin/tenant-policy/{tenant_id}', { params: { path: { tenant_id: 'default' } } });
    expect(reset.data?.fields.pdf_max_pages.source).toBe('platform');
  });

  it('opens every other screen without an error, and says plainly what this installation does not offer', async () => {
    for (const [link, heading] of [['Batches', 'Batches'], ['Users', 'Users'], ['API keys', 'API keys'], ['Sessions', 'Your sessions'], ['Audit log', 'Audit log']] as const) {
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: link }).click();
      await page.getByRole('heading', { name: heading, exact: true }).waitFor();
      await page.waitForLoadState('networkidle');
      expect(await page.getByRole('alert').count(), link).toBe(0);
    }
    await page.getByLabel('Action').fill('admin.tenant_policy.update');
    await page.locator('table[aria-label="Audit entries"] tbody tr', { hasText: 'admin.tenant_policy.update' }).first().waitFor();
    await screenshot(page, 'audit');
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Connections' }).click();
    await page.getByRole('heading', { name: 'Connections', exact: true }).waitFor();
    const offered = await api.GET('/v1/admin/connections');
    if (offered.response.status === 501) expect(await page.locator('.card', { hasText: 'Connections' }).textContent()).toContain('not available');
    else expect(await page.getByRole('table', { name: 'Connections' }).count()).toBe(1);
  });

  it('shows an API key secret once', async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'API keys' }).click();
    await page.getByLabel('Name').fill('browser key');
    await page.getByRole('button', { name: 'Create key' }).click();
    const secret = await page.locator('.one-time code.secret').textContent();
    expect(secret).toMatch(/^qk_/);
    const me = await apiClient(h.baseUrl, { token: secret! }).GET('/v1/me');
    expect(me.response.status).toBe(200);
    await page.getByRole('button', { name: 'Done' }).click();
    expect(await page.locator('body').textContent()).not.toContain(secret!);
  });

  it('lets a platform admin switch tenant, an invited user accept the invitation, and reset a password', async () => {
    await h.seedTenant('acme', 'Acme Corp');
    await page.reload();
    await page.getByLabel('Tenant').selectOption('acme');
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Users' }).click();
    await page.getByLabel('Email').fill('new.person@acme.test');
    await page.getByRole('button', { name: 'Invite' }).click();
    const link = await page.locator('.one-time code.secret').textContent();
    expect(link).toContain('/app/accept-invite?token=');
    const invited = await h.db.selectFrom('users').select(['tenant_id', 'status']).where('email', '=', 'new.person@acme.test').executeTakeFirstOrThrow();
    expect(invited).toEqual({ tenant_id: 'acme', status: 'invited' });

    const guest = await browser.newPage({ viewport: { width: 834, height: 1112 } });
    try {
      await guest.goto(new URL(new URL(link!).pathname + new URL(link!).search, h.baseUrl).toString());
      await guest.getByText('new.person@acme.test').waitFor();
      await guest.getByLabel('New password (at least 12 characters)').fill('a brand new password');
      await guest.getByLabel('Repeat the password').fill('a brand new password');
      await guest.getByRole('button', { name: 'Accept and sign in' }).click();
      await guest.getByRole('heading', { name: 'Documents' }).waitFor();
      expect(await guest.getByRole('navigation', { name: 'Main' }).textContent()).toContain('new.person@acme.test');
      await screenshot(guest, 'tablet-documents');

      // The admin issues a password reset; its link opens the reset screen, which signs in again.
      await page.reload();
      const row = page.locator('table[aria-label="Users"] tbody tr', { hasText: 'new.person@acme.test' });
      await row.getByRole('button', { name: 'Reset password' }).click();
      const reset = await page.locator('.one-time code.secret').filter({ hasText: 'reset-password' }).textContent();
      await guest.evaluate(() => localStorage.clear());
      await guest.goto(new URL(new URL(reset!).pathname + new URL(reset!).search, h.baseUrl).toString());
      await guest.getByRole('heading', { name: 'Choose a new password' }).waitFor();
      await guest.getByLabel('New password (at least 12 characters)').fill('another new password');
      await guest.getByLabel('Repeat the password').fill('another new password');
      await guest.getByRole('button', { name: 'Set password and sign in' }).click();
      await guest.getByRole('heading', { name: 'Documents' }).waitFor();
      expect(await h.login('new.person@acme.test', 'another new password')).toBeTruthy();
    } finally {
      await guest.close();
    }
  });

  it('creates a batch from several files and watches its counts until every job is done', async () => {
    await page.getByLabel('Tenant').selectOption('default');
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Batches' }).click();
    const form = page.getByRole('form', { name: 'New batch' });
    await form.getByLabel('Name').fill('two invoices');
    await form.getByLabel('Mode').selectOption('canonical');
    await form.getByLabel('Files').setInputFiles([CAMELOT, data('invoice2data/files/camelot-bol100649863.pdf')]);
    await form.getByRole('button', { name: 'Create batch' }).click();
    await page.getByRole('heading', { name: 'two invoices' }).waitFor();
    await page.locator('.count-completed', { hasText: 'completed 2' }).waitFor({ timeout: 60_000 });
    expect(await page.locator('table[aria-label="Jobs of the batch"] tbody tr').count()).toBe(2);
    await page.locator('.badge-completed').first().waitFor();
    await screenshot(page, 'batch');
  }, 90_000);

  it("shows the API's validation items for a refused upload and a refused batch", async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Documents' }).click();
    await page.getByLabel('Pages (optional)').fill('seven');
    await page.getByLabel('Choose files to upload').setInputFiles([CAMELOT]);
    const refused = page.locator('ul[aria-label="Uploads"] li.upload-failed').first();
    await expect.poll(() => refused.textContent()).toContain('page_range');
    await page.getByLabel('Pages (optional)').fill('');
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Batches' }).click();
    const form = page.getByRole('form', { name: 'New batch' });
    await form.getByLabel('Name').fill('n'.repeat(300));
    await form.getByLabel('Files').setInputFiles([CAMELOT]);
    await form.getByRole('button', { name: 'Create batch' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toMatch(/^name: /);
  });

  it("shows the chosen tenant's templates after a switch, and keeps the tenant when a session ends and the admin signs in again", async () => {
    await api.POST('/v1/templates', { body: { name: 'acme-only', json_schema: { type: 'object', properties: { total: { type: 'number' } } } }, headers: { 'x-tenant-id': 'acme' } });
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Documents' }).click();
    const options = () => page.getByLabel('Template').locator('option').allTextContents();
    await expect.poll(options).toContain('strict-invoice');
    await page.getByLabel('Tenant').selectOption('acme');
    await expect.poll(options).toContain('acme-only');
    expect(await options()).not.toContain('strict-invoice');

    // The API ends the session (here: it is signed out elsewhere); signed in again, the admin is still in acme.
    const token = await page.evaluate(() => JSON.parse(localStorage.getItem('quire.session')!).token as string);
    expect((await apiClient(h.baseUrl, { token }).POST('/v1/auth/logout')).response.status).toBeLessThan(300);
    await page.reload();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await signIn(page);
    await expect.poll(() => page.getByLabel('Tenant').inputValue()).toBe('acme');
    await expect.poll(options).toContain('acme-only');
    await page.getByLabel('Tenant').selectOption('default');
    await expect.poll(options).toContain('strict-invoice');
  });

  it('creates Bedrock and custom_url model endpoints with the credential fields each backend lists', async () => {
    const offered = await api.GET('/v1/admin/forge-endpoints');
    if (offered.response.status !== 200) return;
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Connections' }).click();
    const form = page.getByRole('form', { name: 'New model endpoint' });
    await form.getByLabel('Backend').selectOption('bedrock');
    await form.getByLabel('Access key ID').waitFor();
    await form.getByLabel('Name').fill('bedrock-browser');
    await form.getByLabel('Model').fill('anthropic.claude-3-haiku');
    await form.getByLabel('AWS region').fill('eu-central-1');
    await form.getByLabel('Access key ID').fill('AKIAEXAMPLE');
    await form.getByLabel('Secret access key').fill('secret-example');
    await form.getByRole('button', { name: 'Add endpoint' }).click();
    const table = page.getByRole('table', { name: 'Model endpoints' });
    await table.locator('tr', { hasText: 'bedrock-browser' }).waitFor();
    // custom_url with no API key: the key is left out, not sent as "".
    await form.getByLabel('Backend').selectOption('custom_url');
    await form.getByLabel('Name').fill('local-llm');
    await form.getByLabel('Model').fill('llama3');
    await form.getByLabel(/^Base URL/).fill('http://127.0.0.1:9/v1');
    await form.getByRole('button', { name: 'Add endpoint' }).click();
    await table.locator('tr', { hasText: 'local-llm' }).waitFor();
    expect(await page.getByRole('alert').count()).toBe(0);
  });

  it('asks before deleting a template, and an unknown template id is not an empty editor', async () => {
    const made = await api.POST('/v1/templates', { body: { name: 'to-delete', json_schema: { type: 'object', properties: { total: { type: 'number' } } } } });
    await page.goto(`${h.baseUrl}/app/templates/`);
    await page.getByRole('heading', { name: 'Templates', exact: true }).waitFor();
    await page.goto(`${h.baseUrl}/app/templates/${made.data!.id}`);
    await page.getByRole('heading', { name: 'Template to-delete' }).waitFor();
    page.once('dialog', (d) => void d.dismiss());
    await page.getByRole('button', { name: 'Delete' }).click();
    expect((await api.GET('/v1/templates/{template_id}', { params: { path: { template_id: made.data!.id } } })).response.status).toBe(200);
    page.once('dialog', (d) => void d.accept());
    await page.getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('heading', { name: 'Templates', exact: true }).waitFor();
    expect((await api.GET('/v1/templates/{template_id}', { params: { path: { template_id: made.data!.id } } })).response.status).toBe(404);
    await page.goto(`${h.baseUrl}/app/templates/${made.data!.id}`);
    await page.getByRole('heading', { name: 'Template not found' }).waitFor();
    expect(await page.getByRole('button', { name: /Create template|Save as new version/ }).count()).toBe(0);
  });

  it('shows a member "not permitted" for admin screens and no admin-only buttons', async () => {
    const [t] = (await api.GET('/v1/templates', { params: { query: { limit: 1 } } })).data!.items;
    const { token } = await h.seedUser('default', 'member', { email: 'plain.member@quire.test' });
    const member = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    try {
      await member.goto(`${h.baseUrl}/app/`);
      await member.evaluate((tk) => localStorage.setItem('quire.session', JSON.stringify({ token: tk, tenant: null })), token);
      for (const path of ['/admin/users', '/admin/keys', '/admin/policy', '/admin/audit']) {
        await member.goto(`${h.baseUrl}/app${path}`);
        await member.getByRole('heading', { name: 'Not permitted' }).waitFor();
      }
      await member.goto(`${h.baseUrl}/app/templates`);
      await member.getByRole('table', { name: 'Templates' }).locator('tbody tr').first().waitFor();
      expect(await member.getByRole('link', { name: 'New template' }).count()).toBe(0);
      await member.goto(`${h.baseUrl}/app/templates/${t!.id}`);
      await member.getByRole('heading', { name: `Template ${t!.name}` }).waitFor();
      expect(await member.getByRole('button', { name: /^(Delete|Deactivate|Activate|Save as new version)$/ }).count()).toBe(0);
    } finally {
      await member.close();
    }
  });

  it("shows a tenant admin the platform-controlled settings read-only, and lets it edit its own", async () => {
    const { token } = await h.seedUser('default', 'admin', { email: 'tenant.admin@quire.test' });
    const admin = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    try {
      await admin.goto(`${h.baseUrl}/app/`);
      await admin.evaluate((tk) => localStorage.setItem('quire.session', JSON.stringify({ token: tk, tenant: null })), token);
      await admin.goto(`${h.baseUrl}/app/admin/policy`);
      const limit = admin.locator('tr[data-setting="rate_limit_per_minute"]');
      await limit.getByText('set by the platform operator').waitFor();
      expect(await limit.getByRole('button', { name: 'Save rate_limit_per_minute' }).count()).toBe(0);
      expect(await admin.locator('tr[data-setting="forge_enabled"]').getByRole('button', { name: /^Save / }).count()).toBe(0);
      const own = admin.locator('tr[data-setting="review_warn_count_threshold"]');
      await own.getByRole('textbox', { name: 'review_warn_count_threshold' }).fill('4');
      await own.getByRole('button', { name: 'Save review_warn_count_threshold' }).click();
      await own.locator('.source-tenant').waitFor();
      await own.getByRole('button', { name: 'Reset review_warn_count_threshold to inherit' }).click();
      await own.locator('.source-platform').waitFor();
    } finally {
      await admin.close();
    }
  });

  it('keeps the newest search answer, filters policy without regard to case with feedback beside Save, and draws a visible focus ring', async () => {
    await page.goto(`${h.baseUrl}/app/`);
    await jobRow('camelot-example.pdf').first().waitFor();
    let slowDone!: () => void;
    const slowAnswered = new Promise<void>((resolve) => (slowDone = resolve));
    await page.route(/\/v1\/documents\?.*q=slow/, async (route) => {
      await new Promise((r) => setTimeout(r, 1200));
      await route.continue().catch(() => {});
      slowDone();
    });
    try {
      await page.getByLabel('Search').fill('slow');
      await page.getByLabel('Search').fill('camelot');
      await jobRow('camelot-example.pdf').first().waitFor();
      await slowAnswered;
      await page.waitForTimeout(150);
      // The older answer (nothing matches "slow") came last, and is not what the list shows.
      expect(await jobRow('camelot-example.pdf').count()).toBeGreaterThan(0);
    } finally {
      await page.unroute(/\/v1\/documents\?.*q=slow/);
    }
    await page.getByLabel('Search').fill('');

    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Policy' }).click();
    await page.getByLabel('Filter settings').fill('PDF_MAX_PAGES');
    const row = page.locator('tr[data-setting="pdf_max_pages"]');
    await row.getByRole('textbox', { name: 'pdf_max_pages' }).fill('41');
    await row.getByRole('button', { name: 'Save pdf_max_pages' }).click();
    await page.locator('tr[data-setting="pdf_max_pages"]').getByRole('status').filter({ hasText: 'pdf_max_pages saved' }).waitFor();
    await page.locator('tr[data-setting="pdf_max_pages"]').getByRole('button', { name: 'Reset pdf_max_pages to inherit' }).click();
    await page.locator('tr[data-setting="pdf_max_pages"] .source-platform').waitFor();

    await page.getByLabel('Filter settings').focus();
    await page.keyboard.press('Shift+Tab');
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => getComputedStyle(document.activeElement!).outlineColor)).toBe('rgb(179, 92, 0)');
  });

  it("shows a template test's validation items, not raw JSON", async () => {
    await page.goto(`${h.baseUrl}/app/templates/new`);
    await page.getByRole('heading', { name: 'New template' }).waitFor();
    await page.getByLabel('Name', { exact: true }).fill('test-refused');
    await page.getByLabel('Field 1 name').fill('total');
    await page.getByRole('button', { name: 'Add rule' }).click();
    await page.getByLabel('Rule 1 kind').selectOption('required');
    await page.getByLabel('Rule 1 field').fill('no_such_field');
    await page.getByLabel('Rule 1 params').fill('');
    await page.getByLabel('or a processed job').selectOption({ label: 'AzureInterior.pdf' });
    await page.getByRole('button', { name: 'Run test' }).click();
    const alert = page.getByRole('alert').filter({ hasText: 'The test failed' });
    await alert.waitFor();
    expect(await alert.textContent()).not.toMatch(/[[{]"/);
    expect(await alert.textContent()).toContain('no_such_field');
  });

  describe('the review screen', () => {
    const LINES = {
      type: 'object',
      properties: {
        invoice_number: { type: 'string' },
        total: { type: 'number' },
        po_number: { type: 'string' },
        line_items: { type: 'array', items: { type: 'object', properties: { description: { type: 'string' }, amount: { type: 'number' } } } },
      },
    };

    /** A job extracted with a new template that waits for review (every field is below the floor), and its review. */
    async function inReview(name: string, file: string, json_schema: Record<string, unknown> = LINES, templateId?: string) {
      const schema = { ...json_schema, properties: { ...(json_schema.properties as object), po_number: { type: 'string' } } };
      const t = templateId ? { data: { id: templateId } } : await api.POST('/v1/templates', { body: { name, json_schema: schema, review_thresholds: { confidence_floor: 1, warn_count_threshold: 1 }, validation_rules: [{ kind: 'required', field: 'po_number', severity: 'warn', message: 'No purchase order number.' }] } });
      if (!templateId) expect((t as { response: Response }).response.status).toBe(201);
      const res = await upload(h, (await h.adminToken())!, data(file), { processing_mode: 'extraction', template_id: t.data!.id });
      expect(res.status, JSON.stringify(res.body)).toBe(202);
      const job = await waitForJob(h, (await h.adminToken())!, res.body.job_id, ['needs_review', 'completed', 'failed', 'rejected'], 60_000);
      expect(job.status).toBe('needs_review');
      const reviews = await api.GET('/v1/reviews', { params: { query: { limit: 100 } } });
      const review = reviews.data!.items.find((r) => r.job_id === job.job_id)!;
      return { templateId: t.data!.id, job, reviewId: review.review_id };
    }
    const storedData = async (jobId: string) =>
      ((await api.GET('/v1/documents/{job_id}', { params: { path: { job_id: jobId } } })).data?.result as { extraction: { data: Record<string, any> } }).extraction.data;
    const fieldInput = (path: string) => page.locator('.fields .field', { has: page.locator('label', { hasText: new RegExp(`^${path.replace(/[[\].]/g, '\\$&')}$`) }) }).locator('input, textarea');

    it('saves an edit inside an array as the whole array with that item changed, typed, and removes a wrong row', async () => {
      const { job, reviewId } = await inReview('flipkart-lines', 'invoice2data/compare/FlipkartInvoice.pdf');
      const before = (job.result as { extraction: { data: Record<string, any> } }).extraction.data;
      expect(before.line_items?.length).toBeGreaterThan(0);
      await page.goto(`${h.baseUrl}/app/reviews/${reviewId}`);
      await page.getByRole('heading', { name: /Review: FlipkartInvoice/ }).waitFor();
      // The item fields carry the review's reasons, which name them generically (line_items[].amount).
      await expect.poll(() => page.locator('.fields .field', { has: page.locator('label', { hasText: 'line_items[0].amount' }) }).locator('.reasons').textContent()).toContain('low confidence');
      // A value of several lines is shown in a text area, lines kept.
      if (String(before.line_items[0].description).includes('\n')) {
        expect(await fieldInput('line_items[0].description').evaluate((e) => e.tagName)).toBe('TEXTAREA');
        expect(await fieldInput('line_items[0].description').inputValue()).toBe(before.line_items[0].description);
      }
      await fieldInput('line_items[0].amount').fill('1.300,50');
      // Each row can be removed (and kept again before saving).
      await page.getByRole('button', { name: 'Remove line_items[0]' }).click();
      await page.getByRole('button', { name: 'Keep line_items[0]' }).click();
      await page.keyboard.press('Control+Enter');
      await page.getByRole('status').filter({ hasText: 'The job is completed' }).waitFor();
      const after = await storedData(job.job_id);
      // No key named after the path ("line_items[0]"): the array came back whole, with the item's amount a number.
      expect(Object.keys(after).sort()).toEqual(Object.keys(before).sort());
      expect(after.line_items).toEqual([{ ...before.line_items[0], amount: 1300.5 }, ...before.line_items.slice(1)]);
    }, 90_000);

    it("types edits by the template version the job used, shows review-wide reasons, and refuses edits when that template is gone", async () => {
      const first = await inReview('versioned', 'invoice2data/compare/AzureInterior.pdf');
      const second = await inReview('versioned', 'invoice2data/compare/AzureInterior.pdf', LINES, first.templateId);
      // Version 2 makes total a string; the jobs were extracted with version 1, where it is a number.
      const v2 = await api.PUT('/v1/templates/{template_id}', { params: { path: { template_id: first.templateId } }, body: { name: 'versioned', json_schema: { ...LINES, properties: { ...LINES.properties, total: { type: 'string' } } } } });
      expect(v2.response.status).toBe(200);
      await page.goto(`${h.baseUrl}/app/reviews/${first.reviewId}`);
      await page.getByRole('heading', { name: /Review: AzureInterior/ }).waitFor();
      // Reasons tied to no field stand at the top.
      const general = page.getByRole('list', { name: 'Reasons for the whole review' });
      await expect.poll(() => general.textContent()).toContain('warn_count');
      await fieldInput('total').fill('1.234,50');
      await page.keyboard.press('Control+Enter');
      await page.getByRole('status').filter({ hasText: 'The job is completed' }).waitFor();
      expect((await storedData(first.job.job_id)).total).toBe(1234.5);

      expect((await api.DELETE('/v1/templates/{template_id}', { params: { path: { template_id: first.templateId } } })).response.status).toBe(204);
      await page.goto(`${h.baseUrl}/app/reviews/${second.reviewId}`);
      await page.getByRole('alert').filter({ hasText: 'cannot be loaded' }).waitFor();
      expect(await fieldInput('total').getAttribute('readonly')).not.toBeNull();
      await page.keyboard.press('Control+Enter');
      await page.getByRole('status').filter({ hasText: 'The job is completed' }).waitFor();
      const review = await api.GET('/v1/reviews/{review_id}', { params: { path: { review_id: second.reviewId } } });
      expect(review.data?.review.status).toBe('approved');
    }, 120_000);

    it('brings the focused field\'s evidence into view and draws every box of it; Ctrl+Enter twice approves once', async () => {
      const receipt = { type: 'object', properties: { company: { type: 'string' }, date: { type: 'string' }, total: { type: 'number' } } };
      const { job, reviewId } = await inReview('receipt', 'sroie/img/000.jpg', receipt);
      const fields = (job.result as { extraction: { fields: Record<string, { evidence?: { page: number }[] }> } }).extraction.fields;
      expect(fields.total?.evidence?.length).toBeGreaterThan(0);
      await page.setViewportSize({ width: 1280, height: 800 });
      await page.goto(`${h.baseUrl}/app/reviews/${reviewId}`);
      await page.locator('figure.page-view img').waitFor();
      await fieldInput('total').focus();
      const marks = page.locator('.page-side svg rect.box-highlight');
      await expect.poll(() => marks.count()).toBe(fields.total!.evidence!.filter((e) => e.page === 1).length);
      await expect
        .poll(async () => {
          const box = (await marks.first().boundingBox())!;
          return box.y >= 0 && box.y + box.height <= 800;
        })
        .toBe(true);
      // An edit put back as it was is no edit: the button approves.
      const stored = await fieldInput('total').inputValue();
      await fieldInput('total').fill('1');
      await page.getByRole('button', { name: /Save edits and complete/ }).waitFor();
      await fieldInput('total').fill(stored);
      await page.getByRole('button', { name: 'Approve (Ctrl+Enter)' }).waitFor();
      // Two quick Ctrl+Enter: one approval, no 409.
      await page.keyboard.press('Control+Enter');
      await page.keyboard.press('Control+Enter');
      await page.getByRole('status').filter({ hasText: 'The job is completed' }).waitFor();
      await page.waitForLoadState('networkidle');
      expect(await page.getByRole('alert').count()).toBe(0);
    }, 120_000);

    it('keeps the keys on the fields after a page change, shows a field\'s page again when it is focused again, and shows a decision taken elsewhere', async () => {
      const { job, reviewId } = await inReview('two-pages', 'invoice2data/compare/QualityHosting.pdf', { type: 'object', properties: { invoice_number: { type: 'string' }, date: { type: 'string' }, total: { type: 'number' } } });
      const fields = (job.result as { extraction: { fields: Record<string, { evidence?: { page: number }[] }> } }).extraction.fields;
      const grounded = Object.keys(fields).find((p) => fields[p]!.evidence?.length)!;
      const home = fields[grounded]!.evidence![0]!.page;
      const other = home === 1 ? 2 : 1;
      await page.goto(`${h.baseUrl}/app/reviews/${reviewId}`);
      await page.getByRole('navigation', { name: 'Pages' }).waitFor();
      await fieldInput(grounded).focus();
      await expect.poll(() => page.locator('.page-side figure.page-view').getAttribute('data-page')).toBe(String(home));
      const id = await fieldInput(grounded).getAttribute('id');
      await page.getByRole('button', { name: `Page ${other}` }).click();
      await expect.poll(() => page.locator('.page-side figure.page-view').getAttribute('data-page')).toBe(String(other));
      expect(await page.evaluate(() => document.activeElement?.id)).toBe(id);
      const last = id === `field-${(await page.locator('.fields .field').count()) - 1}`;
      await page.keyboard.press(last ? 'Shift+Enter' : 'Enter');
      expect(await page.evaluate(() => document.activeElement?.id)).not.toBe(id);
      await page.keyboard.press(last ? 'Enter' : 'Shift+Enter');
      expect(await page.evaluate(() => document.activeElement?.id)).toBe(id);
      await expect.poll(() => page.locator('.page-side figure.page-view').getAttribute('data-page')).toBe(String(home));

      // Another reviewer approves first: this screen says so, with who, and shows the decided review.
      expect((await api.POST('/v1/reviews/{review_id}/approve', { params: { path: { review_id: reviewId } }, body: { note: 'done elsewhere' } })).response.status).toBe(200);
      await fieldInput(grounded).fill('changed');
      await page.keyboard.press('Control+Enter');
      await page.getByRole('alert').filter({ hasText: 'someone decided this review first' }).waitFor();
      expect(await page.getByRole('status').filter({ hasText: 'Decided: approved' }).textContent()).toContain('done elsewhere');
      expect(await fieldInput(grounded).getAttribute('readonly')).not.toBeNull();
      expect(await fieldInput(grounded).inputValue()).not.toBe('changed');

      // A page image that cannot be fetched says so instead of loading forever.
      await page.route('**/v1/artifacts/**', (route) => route.fulfill({ status: 500, body: '{}' }));
      try {
        await page.reload();
        await page.getByRole('alert').filter({ hasText: 'page image could not be loaded' }).waitFor();
      } finally {
        await page.unroute('**/v1/artifacts/**');
      }
    }, 120_000);
  });

  it('pages the review queue and the batch list beyond 100 entries', async () => {
    const [job] = (await api.GET('/v1/documents', { params: { query: { limit: 1 } } })).data!.items;
    const old = (i: number) => new Date(Date.UTC(2001, 0, 1, 0, 0, i));
    await h.db.insertInto('reviews').values(Array.from({ length: 101 }, (_, i) => ({ id: `rev_old_${i}`, tenant_id: 'default', job_id: job!.job_id, status: 'approved', created_at: old(i), updated_at: old(i) }))).execute();
    await h.db.insertInto('batches').values(Array.from({ length: 101 }, (_, i) => ({ id: `bat_old_${i}`, tenant_id: 'default', name: `old batch ${i}`, processing_mode: 'canonical', status: 'completed', created_at: old(i), updated_at: old(i) }))).execute();
    const nav = page.getByRole('navigation', { name: 'Main' });
    await nav.getByRole('link', { name: 'Reviews' }).click();
    await page.getByLabel('Status').selectOption('approved');
    const reviewRows = page.locator('table[aria-label="Reviews"] tbody tr');
    await expect.poll(() => reviewRows.count()).toBe(100);
    const reviewPages = page.getByRole('group', { name: 'Pages of reviews' });
    await reviewPages.getByRole('button', { name: 'Older' }).click();
    await expect.poll(() => reviewRows.count()).toBeLessThan(100);
    expect(await reviewRows.count()).toBeGreaterThan(0);
    await reviewPages.getByRole('button', { name: 'Newest' }).click();
    await expect.poll(() => reviewRows.count()).toBe(100);

    await nav.getByRole('link', { name: 'Batches' }).click();
    const batchRows = page.locator('table[aria-label="Batches"] tbody tr');
    await expect.poll(() => batchRows.count()).toBe(100);
    await page.getByRole('group', { name: 'Pages of batches' }).getByRole('button', { name: 'Older' }).click();
    await page.locator('table[aria-label="Batches"] tbody tr', { hasText: 'old batch 0' }).waitFor();
  });
});

