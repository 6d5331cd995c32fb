// Tenant policy and platform defaults through HTTP: every rule and constraint of interface.md
// (PATCH /v1/admin/tenant-policy/{tenant_id}) and decisions.md ("Tenant policy and platform defaults").
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtInDefaults, POLICY_NAMES } from '../../src/domain/policy/policy.registry.js';
import { type Harness, startHarness } from '../helpers/harness.js';

let h: Harness;
let platform: string;
let acmeAdmin: string;
let acmeMember: string;
let globexAdmin: string;

const policyOf = (tenant: string) => `/v1/admin/tenant-policy/${tenant}`;

beforeAll(async () => {
  h = await startHarness();
  await h.seedTenant('acme');
  await h.seedTenant('globex');
  platform = await h.adminToken();
  acmeAdmin = (await h.seedUser('acme', 'admin')).token!;
  acmeMember = (await h.seedUser('acme', 'member')).token!;
  globexAdmin = (await h.seedUser('globex', 'admin')).token!;
});
afterAll(() => h.close());

async function resetAll() {
  await h.db.deleteFrom('tenant_policies').execute();
  await h.db.deleteFrom('platform_defaults').execute();
  // Reads are never cached; the bump also tells the app's effective-policy cache to start over.
  await h.db.updateTable('policy_version').set((eb) => ({ version: eb('version', '+', 1) })).execute();
}

// A platform admin acting on acme: every field may be set (a tenant admin's limits are tested apart).
const patch = (body: unknown, token = platform, tenant = 'acme') => h.request('PATCH', policyOf(tenant), { token, body });

describe('authentication and authorisation', () => {
  const adminOps: [string, string][] = [
    ['GET', policyOf('acme')],
    ['PATCH', policyOf('acme')],
    ['DELETE', policyOf('acme')],
    ['GET', '/v1/admin/tenant-policy/defaults-view'],
    ['GET', '/v1/admin/tenant-policy/registry-spec'],
  ];
  const platformOps: [string, string][] = [
    ['GET', '/v1/platform/defaults'],
    ['PATCH', '/v1/platform/defaults'],
  ];

  it('answers 401 without a credential', async () => {
    for (const [method, path] of [...adminOps, ...platformOps]) {
      const res = await h.request(method, path, method === 'PATCH' ? { body: {} } : {});
      expect(res.status, `${method} ${path}`).toBe(401);
      expect(res.body.code).toBe('unauthorized');
    }
  });

  it('answers 403 to a member, and 403 to a tenant admin on platform defaults', async () => {
    for (const [method, path] of adminOps) {
      const res = await h.request(method, path, { token: acmeMember, ...(method === 'PATCH' ? { body: {} } : {}) });
      expect(res.status, `${method} ${path}`).toBe(403);
      expect(res.body.code).toBe('insufficient_role');
    }
    for (const [method, path] of platformOps) {
      const res = await h.request(method, path, { token: acmeAdmin, ...(method === 'PATCH' ? { body: { pdf_max_pages: 3 } } : {}) });
      expect(res.status, `${method} ${path}`).toBe(403);
    }
  });

  it("answers 404 to a tenant admin naming another tenant, exactly as for a tenant that does not exist", async () => {
    for (const tenant of ['globex', 'no-such-tenant']) {
      for (const [method, body] of [['GET'], ['PATCH', { pdf_max_pages: 3 }], ['DELETE']] as const) {
        const res = await h.request(method, policyOf(tenant), { token: acmeAdmin, ...(body ? { body } : {}) });
        expect(res.status, `${method} ${tenant}`).toBe(404);
        expect(res.body).toEqual({ detail: expect.stringContaining(tenant), code: 'not_found' });
      }
    }
    expect((await h.request('GET', policyOf('globex'), { token: globexAdmin })).body.fields.pdf_max_pages.source).toBe('platform');
    expect((await h.request('GET', policyOf('globex'))).status).toBe(401);
  });

  it('lets a platform admin act on any existing tenant, and 404s an unknown one', async () => {
    const res = await patch({ pdf_max_pages: 7 }, platform, 'globex');
    expect(res.status).toBe(200);
    expect(res.body.fields.pdf_max_pages).toEqual({ value: 7, source: 'tenant' });
    expect((await h.request('GET', policyOf('globex'), { token: globexAdmin })).body.effective.pdf_max_pages).toBe(7);
    expect((await h.request('GET', policyOf('nowhere'), { token: platform })).status).toBe(404);
    expect((await patch({ pdf_max_pages: 7 }, platform, 'nowhere')).status).toBe(404);
    await h.request('DELETE', policyOf('globex'), { token: platform });
  });
});

describe('GET /v1/admin/tenant-policy/{tenant_id}', () => {
  beforeAll(resetAll);

  it('shows every field with its value and source, and the effective view', async () => {
    const res = await h.request('GET', policyOf('acme'), { token: acmeAdmin });
    expect(res.status).toBe(200);
    const defaults = builtInDefaults();
    expect(res.body.tenant_id).toBe('acme');
    expect(Object.keys(res.body.fields)).toEqual(POLICY_NAMES);
    for (const name of POLICY_NAMES) expect(res.body.fields[name]).toEqual({ value: defaults[name], source: 'platform' });
    expect(res.body.effective).toEqual(defaults);
  });
});

describe('PATCH /v1/admin/tenant-policy/{tenant_id}', () => {
  beforeAll(resetAll);

  it('applies present keys and leaves absent ones unchanged', async () => {
    const first = await patch({ rate_limit_per_minute: 500, pptx_notes_mode: 'pages', judge_mode_enabled: true });
    expect(first.status).toBe(200);
    expect(first.body.fields.rate_limit_per_minute).toEqual({ value: 500, source: 'tenant' });
    expect(first.body.fields.pptx_notes_mode).toEqual({ value: 'pages', source: 'tenant' });
    const second = await patch({ pdf_max_pages: 12 });
    expect(second.body.fields.rate_limit_per_minute).toEqual({ value: 500, source: 'tenant' });
    expect(second.body.fields.judge_mode_enabled).toEqual({ value: true, source: 'tenant' });
    expect(second.body.effective).toMatchObject({ pdf_max_pages: 12, pptx_notes_mode: 'pages', rate_limit_per_minute: 500 });
    const empty = await patch({});
    expect(empty.status).toBe(200);
    expect(empty.body).toEqual(second.body);
  });

  it('clears an inheritable field with null: the next read inherits, and follows the platform default', async () => {
    const cleared = await patch({ rate_limit_per_minute: null, pdf_max_pages: null });
    expect(cleared.status).toBe(200);
    expect(cleared.body.fields.rate_limit_per_minute).toEqual({ value: builtInDefaults().rate_limit_per_minute, source: 'platform' });
    expect((await h.request('PATCH', '/v1/platform/defaults', { token: platform, body: { pdf_max_pages: 77 } })).status).toBe(200);
    const read = await h.request('GET', policyOf('acme'), { token: acmeAdmin });
    expect(read.body.fields.pdf_max_pages).toEqual({ value: 77, source: 'platform' });
    expect(read.body.effective.pdf_max_pages).toBe(77);
    expect(read.body.fields.judge_mode_enabled).toEqual({ value: true, source: 'tenant' });
  });

  it("sets default_template_id to one of the tenant's live templates only, and clears it back to the platform null", async () => {
    const template = (token: string, name: string) =>
      h.request('POST', '/v1/templates', { token, body: { name, json_schema: { type: 'object', properties: { total: { type: 'number' } } } } });
    const ours = (await template(acmeAdmin, 'default-one')).body.id as string;
    const theirs = (await template(globexAdmin, 'not-yours')).body.id as string;
    for (const id of [theirs, 'tpl_nonexistent']) {
      const res = await patch({ default_template_id: id });
      expect(res.status, id).toBe(404);
      expect(res.body.code).toBe('not_found');
    }
    expect((await h.request('GET', policyOf('acme'), { token: acmeAdmin })).body.fields.default_template_id.value).toBeNull();
    expect((await patch({ default_template_id: ours })).body.effective.default_template_id).toBe(ours);
    const cleared = await patch({ default_template_id: null });
    expect(cleared.body.fields.default_template_id).toEqual({ value: null, source: 'platform' });
    // Templates belong to tenants: the platform default stays none.
    const platformWide = await h.request('PATCH', '/v1/platform/defaults', { token: platform, body: { default_template_id: ours } });
    expect(platformWide.status).toBe(422);
    expect(platformWide.body.detail[0].loc).toEqual(['body', 'default_template_id']);
  });

  it('never points default_template_id at a template whose delete is committing meanwhile', async () => {
    const created = await h.request('POST', '/v1/templates', { token: acmeAdmin, body: { name: 'going-away', json_schema: { type: 'object', properties: { total: { type: 'number' } } } } });
    const id = created.body.id as string;
    // A delete in flight: it holds the template's row and has marked it deleted, not yet committed.
    let setting: Promise<{ status: number; body: { code?: string } }> | undefined;
    await h.db.transaction().execute(async (tx) => {
      await tx.selectFrom('templates').select('id').where('id', '=', id).forUpdate().execute();
      await tx.updateTable('templates').set({ deleted_at: new Date() }).where('id', '=', id).execute();
      setting = patch({ default_template_id: id });
      // Long enough for the PATCH to reach its check of the template (it answers in milliseconds when it does not wait).
      await new Promise((r) => setTimeout(r, 300));
    });
    const res = await setting!;
    expect(res.status, JSON.stringify(res.body)).toBe(404);
    expect((await h.request('GET', policyOf('acme'), { token: acmeAdmin })).body.fields.default_template_id.value).toBeNull();
  });

  it('stores nested policy objects exactly as given, and clears them with null', async () => {
    const layout = { reading_order: 'columns', thresholds: { min: 0.2, list: [1, 'two', null] }, nothing: null };
    const set = await patch({ layout_policy: layout, paddle_risk_policy: {}, feature_flags: { beta_console: true } });
    expect(set.status).toBe(200);
    expect(set.body.fields.layout_policy).toEqual({ value: layout, source: 'tenant' });
    expect(set.body.fields.paddle_risk_policy).toEqual({ value: {}, source: 'tenant' });
    expect(set.body.effective.feature_flags).toEqual({ beta_console: true });
    const replaced = await patch({ layout_policy: { other: 1 } });
    expect(replaced.body.effective.layout_policy).toEqual({ other: 1 });
    const cleared = await patch({ layout_policy: null });
    expect(cleared.body.fields.layout_policy).toEqual({ value: {}, source: 'platform' });
  });

  it('refuses an explicit null on each kill switch with 422 in the validation shape', async () => {
    for (const name of ['forge_enabled', 'tenant_infra_overrides_enabled', 'feature_flags']) {
      const res = await patch({ [name]: null });
      expect(res.status, name).toBe(422);
      expect(res.body.detail).toHaveLength(1);
      expect(res.body.detail[0]).toEqual({ loc: ['body', name], msg: expect.stringMatching(/^Value error, .*not inheritable/), type: 'value_error', input: null });
    }
  });

  it('lets a kill switch be set and changed, but never cleared', async () => {
    const off = await patch({ forge_enabled: false, tenant_infra_overrides_enabled: true });
    expect(off.body.fields.forge_enabled).toEqual({ value: false, source: 'tenant' });
    expect(off.body.fields.tenant_infra_overrides_enabled).toEqual({ value: true, source: 'tenant' });
    expect((await patch({ forge_enabled: null })).status).toBe(422);
    expect((await h.request('GET', policyOf('acme'), { token: acmeAdmin })).body.fields.forge_enabled).toEqual({ value: false, source: 'tenant' });
  });

  it('reports every bad field of one request together, in body order, and changes nothing', async () => {
    const before = await h.request('GET', policyOf('acme'), { token: acmeAdmin });
    const res = await patch({ pdf_max_pages: 0, forge_enabled: null, auto_classify_enabled: true, review_agreement_floor: 2, feature_flags: null });
    expect(res.status).toBe(422);
    expect(res.body.detail.map((d: { loc: string[] }) => d.loc)).toEqual([
      ['body', 'pdf_max_pages'],
      ['body', 'forge_enabled'],
      ['body', 'review_agreement_floor'],
      ['body', 'feature_flags'],
    ]);
    expect((await h.request('GET', policyOf('acme'), { token: acmeAdmin })).body).toEqual(before.body);
  });

  // interface.md: "at most 1", "at least 1", "at least 60", "greater than 0", the enums, and the types.
  const violations: [string, unknown, Record<string, unknown>][] = [
    ['review_agreement_floor', 1.5, { msg: 'Input should be less than or equal to 1', type: 'less_than_equal', ctx: { le: 1 } }],
    ['review_confidence_floor', 1.0001, { msg: 'Input should be less than or equal to 1', type: 'less_than_equal', ctx: { le: 1 } }],
    ['ocr_priority_margin', 3, { msg: 'Input should be less than or equal to 1', type: 'less_than_equal', ctx: { le: 1 } }],
    ['review_warn_count_threshold', 0, { msg: 'Input should be greater than or equal to 1', type: 'greater_than_equal', ctx: { ge: 1 } }],
    ['rate_limit_per_minute', 0, { msg: 'Input should be greater than or equal to 1', type: 'greater_than_equal', ctx: { ge: 1 } }],
    ['pdf_max_pages', -5, { msg: 'Input should be greater than or equal to 1', type: 'greater_than_equal', ctx: { ge: 1 } }],
    ['forge_per_job_max_iterations', 0, { msg: 'Input should be greater than or equal to 1', type: 'greater_than_equal', ctx: { ge: 1 } }],
    ['forge_per_job_max_wall_seconds', 59, { msg: 'Input should be greater than or equal to 60', type: 'greater_than_equal', ctx: { ge: 60 } }],
    ['forge_per_job_max_dollars', 0, { msg: 'Input should be greater than 0', type: 'greater_than', ctx: { gt: 0 } }],
    ['forge_per_job_max_dollars', -1, { msg: 'Input should be greater than 0', type: 'greater_than', ctx: { gt: 0 } }],
    ['pptx_notes_mode', 'slides', { msg: "Input should be 'margin', 'pages' or 'off'", type: 'enum', ctx: { expected: "'margin', 'pages' or 'off'" } }],
    ['extraction_chunk_merge_strategy', 'smart', { msg: "Input should be 'field_aware' or 'legacy'", type: 'enum', ctx: { expected: "'field_aware' or 'legacy'" } }],
    ['tax_id_country_prefix_mode', 'strip', { msg: "Input should be 'infer', 'preserve' or 'off'", type: 'enum', ctx: { expected: "'infer', 'preserve' or 'off'" } }],
    ['ocr_selection_mode', 'easyocr_priority', { msg: "Input should be 'tesseract_priority', 'paddle_priority' or 'confidence_based'", type: 'enum', ctx: { expected: "'tesseract_priority', 'paddle_priority' or 'confidence_based'" } }],
    ['rate_limit_per_minute', 1.5, { msg: 'Input should be a valid integer', type: 'int_type' }],
    ['forge_monthly_token_quota', 'lots', { msg: 'Input should be a valid integer', type: 'int_type' }],
    ['forge_monthly_dollar_quota', '5', { msg: 'Input should be a valid number', type: 'float_type' }],
    ['auto_classify_enabled', 'yes', { msg: 'Input should be a valid boolean', type: 'bool_type' }],
    ['forge_enabled', 1, { msg: 'Input should be a valid boolean', type: 'bool_type' }],
    ['default_template_id', 42, { msg: 'Input should be a valid string', type: 'string_type' }],
    ['layout_policy', [1, 2], { msg: 'Input should be a valid dictionary', type: 'dict_type' }],
    ['feature_flags', 'on', { msg: 'Input should be a valid dictionary', type: 'dict_type' }],
  ];
  it.each(violations)('refuses %s = %j with the exact 422 item', async (name, input, expected) => {
    const res = await patch({ [name]: input });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ detail: [{ loc: ['body', name], input, ...expected }] });
  });

  it('accepts the boundary values', async () => {
    const res = await patch({
      review_agreement_floor: 1,
      review_confidence_floor: 0,
      ocr_priority_margin: -0.5,
      review_warn_count_threshold: 1,
      rate_limit_per_minute: 1_000_000,
      pdf_max_pages: 1,
      forge_per_job_max_iterations: 1,
      forge_per_job_max_wall_seconds: 60,
      forge_per_job_max_dollars: 0.01,
      forge_monthly_token_quota: 0,
      forge_monthly_dollar_quota: 0.5,
      ocr_selection_mode: 'paddle_priority',
    });
    expect(res.status).toBe(200);
    expect(res.body.effective).toMatchObject({ review_agreement_floor: 1, forge_per_job_max_wall_seconds: 60, forge_per_job_max_dollars: 0.01, ocr_selection_mode: 'paddle_priority' });
  });

  it('refuses unknown fields and a body that is not an object', async () => {
    const unknown = await patch({ rate_limit: 5 });
    expect(unknown.status).toBe(422);
    expect(unknown.body.detail).toEqual([{ loc: ['body', 'rate_limit'], msg: 'Extra inputs are not permitted', type: 'extra_forbidden', input: 5 }]);
    const list = await patch([1]);
    expect(list.status).toBe(422);
    expect(list.body.detail[0]).toMatchObject({ loc: ['body'], type: 'dict_type' });
    const none = await h.request('PATCH', policyOf('acme'), { token: acmeAdmin });
    expect(none.status).toBe(422);
    expect(none.body.detail).toEqual([{ loc: ['body'], msg: 'Field required', type: 'missing', input: null }]);
  });
});

describe('DELETE /v1/admin/tenant-policy/{tenant_id}', () => {
  beforeAll(resetAll);

  it('resets the tenant to inherit everything, kill switches included, and answers the fresh read', async () => {
    await patch({ forge_enabled: false, feature_flags: { x: 1 }, pdf_max_pages: 3, layout_policy: { a: 1 } });
    const res = await h.request('DELETE', policyOf('acme'), { token: platform });
    expect(res.status).toBe(200);
    expect(res.body.tenant_id).toBe('acme');
    for (const name of POLICY_NAMES) expect(res.body.fields[name].source, name).toBe('platform');
    expect(res.body.effective).toEqual(builtInDefaults());
    expect((await h.request('GET', policyOf('acme'), { token: acmeAdmin })).body).toEqual(res.body);
    expect((await h.request('DELETE', policyOf('acme'), { token: acmeAdmin })).status).toBe(200);
  });

  it("by a tenant admin resets the tenant's own fields and keeps what a platform admin set", async () => {
    await patch({ forge_enabled: false, rate_limit_per_minute: 50, layout_policy: { a: 1 }, judge_mode_enabled: true });
    const res = await h.request('DELETE', policyOf('acme'), { token: acmeAdmin });
    expect(res.status).toBe(200);
    expect(res.body.fields.forge_enabled).toEqual({ value: false, source: 'tenant' });
    expect(res.body.fields.rate_limit_per_minute).toEqual({ value: 50, source: 'tenant' });
    expect(res.body.fields.layout_policy.source).toBe('platform');
    expect(res.body.fields.judge_mode_enabled.source).toBe('platform');
    await h.request('DELETE', policyOf('acme'), { token: platform });
  });
});

describe('platform-controlled fields', () => {
  beforeAll(resetAll);

  it('a tenant admin sets its own fields, but a kill switch, the rate limit, the page cap or forge spending is 403 and changes nothing', async () => {
    expect((await patch({ judge_mode_enabled: true, layout_policy: { b: 2 } }, acmeAdmin)).status).toBe(200);
    for (const body of [{ forge_enabled: true }, { tenant_infra_overrides_enabled: true }, { feature_flags: {} }, { rate_limit_per_minute: 1_000_000 }, { pdf_max_pages: 5000 }, { forge_monthly_dollar_quota: 100_000 }, { forge_per_job_max_dollars: 9 }, { judge_mode_enabled: false, forge_monthly_token_quota: 1 }]) {
      const res = await patch(body, acmeAdmin);
      expect(res.status, JSON.stringify(body)).toBe(403);
      expect(res.body.code).toBe('platform_controlled');
      expect(res.body.detail).toContain(Object.keys(body).at(-1));
    }
    const read = (await h.request('GET', policyOf('acme'), { token: acmeAdmin })).body;
    expect(read.fields.judge_mode_enabled).toEqual({ value: true, source: 'tenant' });
    for (const name of ['forge_enabled', 'rate_limit_per_minute', 'pdf_max_pages', 'forge_monthly_token_quota']) expect(read.fields[name].source, name).toBe('platform');
    // A platform admin sets them for the tenant.
    expect((await patch({ rate_limit_per_minute: 10, forge_enabled: false })).body.effective).toMatchObject({ rate_limit_per_minute: 10, forge_enabled: false });
  });
});

describe('platform defaults', () => {
  beforeAll(resetAll);

  it('GET shows every default; PATCH changes them for every tenant that inherits', async () => {
    const before = await h.request('GET', '/v1/platform/defaults', { token: platform });
    expect(before.status).toBe(200);
    expect(before.body).toEqual({ defaults: builtInDefaults(), updated_at: null });
    await patch({ judge_mode_enabled: false }, globexAdmin, 'globex');
    const res = await h.request('PATCH', '/v1/platform/defaults', { token: platform, body: { judge_mode_enabled: true, forge_enabled: false, language_policy: { languages: ['deu'] } } });
    expect(res.status).toBe(200);
    expect(res.body.defaults).toMatchObject({ judge_mode_enabled: true, forge_enabled: false, language_policy: { languages: ['deu'] } });
    expect(res.body.updated_at).toMatch(/Z$/);
    const acme = await h.request('GET', policyOf('acme'), { token: acmeAdmin });
    expect(acme.body.fields.judge_mode_enabled).toEqual({ value: true, source: 'platform' });
    expect(acme.body.fields.forge_enabled).toEqual({ value: false, source: 'platform' });
    const globex = await h.request('GET', policyOf('globex'), { token: globexAdmin });
    expect(globex.body.fields.judge_mode_enabled).toEqual({ value: false, source: 'tenant' });
  });

  it('is what defaults-view shows a tenant admin', async () => {
    const view = await h.request('GET', '/v1/admin/tenant-policy/defaults-view', { token: acmeAdmin });
    expect(view.status).toBe(200);
    expect(view.body).toEqual((await h.request('GET', '/v1/platform/defaults', { token: platform })).body);
  });

  it('refuses null on every field with 422, one item per field', async () => {
    const body = { pdf_max_pages: null, auto_classify_enabled: null, layout_policy: null, pptx_notes_mode: null, default_template_id: null };
    const res = await h.request('PATCH', '/v1/platform/defaults', { token: platform, body });
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual([
      { loc: ['body', 'auto_classify_enabled'], msg: 'Input should be a valid boolean', type: 'bool_type', input: null },
      { loc: ['body', 'default_template_id'], msg: 'Input should be a valid string', type: 'string_type', input: null },
      { loc: ['body', 'pdf_max_pages'], msg: 'Input should be a valid integer', type: 'int_type', input: null },
      { loc: ['body', 'pptx_notes_mode'], msg: 'Input should be a valid string', type: 'string_type', input: null },
      { loc: ['body', 'layout_policy'], msg: 'Input should be a valid dictionary', type: 'dict_type', input: null },
    ]);
  });

  it('applies the same constraints and refuses unknown fields', async () => {
    const res = await h.request('PATCH', '/v1/platform/defaults', { token: platform, body: { forge_per_job_max_wall_seconds: 10, ocr_selection_mode: 'x', bogus: true } });
    expect(res.status).toBe(422);
    expect(res.body.detail.map((d: { type: string }) => d.type).sort()).toEqual(['enum', 'extra_forbidden', 'greater_than_equal']);
  });
});

describe('GET /v1/admin/tenant-policy/registry-spec', () => {
  it('describes every field: type, constraint, inheritable, default, description', async () => {
    const res = await h.request('GET', '/v1/admin/tenant-policy/registry-spec', { token: acmeAdmin });
    expect(res.status).toBe(200);
    expect(res.body.fields.map((f: { name: string }) => f.name)).toEqual(POLICY_NAMES);
    expect(res.body.kill_switches).toEqual(['feature_flags', 'forge_enabled', 'tenant_infra_overrides_enabled']);
    const byName = Object.fromEntries(res.body.fields.map((f: { name: string }) => [f.name, f]));
    expect(byName.review_agreement_floor).toEqual({
      name: 'review_agreement_floor',
      type: 'number',
      enum: null,
      minimum: null,
      maximum: 1,
      exclusive_minimum: null,
      constraint: 'at most 1',
      nullable: true,
      inheritable: true,
      kill_switch: false,
      platform_controlled: false,
      default: 0.8,
      description: expect.any(String),
      schema: { type: 'number', maximum: 1 },
    });
    expect(byName.forge_per_job_max_dollars).toMatchObject({ exclusive_minimum: 0, constraint: 'greater than 0', schema: { type: 'number', exclusiveMinimum: 0 } });
    expect(byName.forge_per_job_max_wall_seconds).toMatchObject({ type: 'integer', minimum: 60, constraint: 'at least 60' });
    expect(byName.ocr_selection_mode).toMatchObject({ type: 'string', enum: ['tesseract_priority', 'paddle_priority', 'confidence_based'] });
    expect(byName.paddle_risk_policy).toMatchObject({ type: 'object', default: {}, inheritable: true });
    expect(byName.forge_enabled).toMatchObject({ type: 'boolean', nullable: false, inheritable: false, kill_switch: true, platform_controlled: true, default: true });
    expect(byName.rate_limit_per_minute).toMatchObject({ inheritable: true, kill_switch: false, platform_controlled: true });
    expect(res.body.platform_controlled).toEqual(['rate_limit_per_minute', 'pdf_max_pages', 'feature_flags', 'forge_enabled', 'tenant_infra_overrides_enabled', 'forge_monthly_token_quota', 'forge_monthly_dollar_quota', 'forge_per_job_max_iterations', 'forge_per_job_max_dollars', 'forge_per_job_max_wall_seconds']);
    expect(byName.default_template_id).toMatchObject({ type: 'string', default: null });
  });
});

describe('audit trail', () => {
  beforeAll(resetAll);

  const latest = (resourceType: string) =>
    h.db.selectFrom('audit_log').selectAll().where('resource_type', '=', resourceType).orderBy('id', 'desc').executeTakeFirstOrThrow();

  it('records each tenant policy change with old and new values, in the target tenant', async () => {
    await patch({ pdf_max_pages: 10 }, platform);
    await patch({ pdf_max_pages: 20, layout_policy: { a: 1 }, auto_classify_enabled: null, judge_mode_enabled: false }, platform);
    const entry = await latest('tenant_policy');
    expect(entry).toMatchObject({ tenant_id: 'acme', resource_id: 'acme', action: 'admin.tenant_policy.update', method: 'PATCH', status_code: 200 });
    // judge_mode_enabled was false by default, but the tenant had not set it: null → false is a change.
    expect(entry.details.changes).toEqual({
      pdf_max_pages: { old: 10, new: 20 },
      layout_policy: { old: null, new: { a: 1 } },
      judge_mode_enabled: { old: null, new: false },
    });
    expect(entry.details.request).toMatchObject({ pdf_max_pages: 20 });
  });

  it('records a reset with the values it removed', async () => {
    await h.request('DELETE', policyOf('acme'), { token: platform });
    const entry = await latest('tenant_policy');
    expect(entry).toMatchObject({ tenant_id: 'acme', action: 'admin.tenant_policy.delete', method: 'DELETE' });
    expect(entry.details.changes).toEqual({
      pdf_max_pages: { old: 20, new: null },
      layout_policy: { old: { a: 1 }, new: null },
      judge_mode_enabled: { old: false, new: null },
    });
  });

  it('records platform default changes with old and new values, outside any tenant', async () => {
    await h.request('PATCH', '/v1/platform/defaults', { token: platform, body: { rate_limit_per_minute: 900, pdf_max_pages: builtInDefaults().pdf_max_pages } });
    const entry = await latest('platform_defaults');
    expect(entry).toMatchObject({ tenant_id: null, action: 'platform.defaults.update' });
    expect(entry.details.changes).toEqual({ rate_limit_per_minute: { old: builtInDefaults().rate_limit_per_minute, new: 900 } });
  });
});

describe('OpenAPI', () => {
  it('documents the tenant PATCH with every field optional and nullable, and the platform PATCH without null', async () => {
    const doc = (await h.request('GET', '/openapi.json')).body;
    const schemaOf = (op: { requestBody: { content: Record<string, { schema: { properties: Record<string, { type: unknown }>; required?: string[] } }> } }) =>
      op.requestBody.content['application/json']!.schema;
    const tenant = schemaOf(doc.paths['/v1/admin/tenant-policy/{tenant_id}'].patch);
    expect(Object.keys(tenant.properties)).toEqual(POLICY_NAMES);
    expect(tenant.required ?? []).toEqual([]);
    for (const name of POLICY_NAMES) expect(tenant.properties[name]!.type, name).toContain('null');
    const platformSchema = schemaOf(doc.paths['/v1/platform/defaults'].patch);
    for (const name of POLICY_NAMES) expect(platformSchema.properties[name]!.type, name).not.toContain('null');
  });
});
