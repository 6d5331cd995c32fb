// The cross-tenant probe: every operation in the OpenAPI document, called by another tenant's
// admin with this tenant's real ids, answers exactly as for ids that do not exist (404 for tenant
// resources), and no list shows another tenant's rows. Driven by the registered routes, so a new
// operation is probed without editing this file.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FILES, upload, uploadBatch } from '../helpers/documents.js';
import { type Harness, PASSWORD, startHarness } from '../helpers/harness.js';

let h: Harness;
let probe: string; // admin of tenant "alpha": the prober
const ids: Record<string, string> = {}; // path parameter name → an id owned by tenant "beta"
const betaIds = new Set<string>();

const TEMPLATE = { name: 'beta-invoice', json_schema: { type: 'object', properties: { total: { type: 'number' } } } };
// Bodies that pass validation, so the probe reaches the handler's tenant check.
const BODIES: Record<string, unknown> = {
  'PUT /v1/templates/{template_id}': { ...TEMPLATE, name: 'renamed' },
  'POST /v1/reviews/{review_id}/override': { patch: { total: 1 } },
  'PATCH /v1/admin/tenant-policy/{tenant_id}': { pdf_max_pages: 3 },
  'PATCH /v1/platform/tenants/{tenant_id}': { name: 'x' },
  'POST /v1/templates/forge/jobs/{job_id}/promote': { name: 'promoted' },
};
// Path parameters that name a kind, not a resource: the probe uses a real kind.
const KINDS: Record<string, string> = { endpoint_type: 'vlm' };

beforeAll(async () => {
  h = await startHarness({ authRateLimitPerIp: 10_000 });
  await h.seedTenant('alpha');
  await h.seedTenant('beta');
  probe = (await h.seedUser('alpha', 'admin')).token!;
  const betaAdmin = await h.seedUser('beta', 'admin');
  const betaUser = await h.seedUser('beta', 'member');
  const token = betaAdmin.token!;

  const job = await upload(h, token, FILES.invoice);
  const batch = await uploadBatch(h, token, [FILES.invoice]);
  const template = await h.request('POST', '/v1/templates', { token, body: TEMPLATE });
  const key = await h.request('POST', '/v1/admin/api-keys', { token, body: { name: 'beta-key' } });
  const sessions = await h.request('GET', '/v1/auth/sessions', { token });
  for (const res of [job, batch, template, key, sessions]) expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
  ids.tenant_id = 'beta';
  ids.job_id = job.body.job_id;
  ids.batch_id = batch.body.batch_id;
  ids.template_id = template.body.id;
  ids.public_id = key.body.public_id;
  ids.session_id = sessions.body.items[0].session_id;
  ids.user_id = betaUser.id;
  ids.review_id = `rev_${randomBytes(8).toString('hex')}`;
  await h.db.insertInto('reviews').values({ id: ids.review_id, tenant_id: 'beta', job_id: ids.job_id, reasons: ['low_confidence'] } as never).execute();
  ids.artifact_id = `art_${randomBytes(8).toString('hex')}`;
  await h.db
    .insertInto('artifacts')
    .values({ id: ids.artifact_id, tenant_id: 'beta', job_id: ids.job_id, kind: 'markdown', page_number: null, filename: 'x.md', content_type: 'text/markdown', size_bytes: 1, sha256: 'a'.repeat(64) } as never)
    .execute();
  for (const [name, value] of Object.entries(ids)) if (name !== 'tenant_id') betaIds.add(value);
  // The beta user's email must not show either.
  betaIds.add((await h.db.selectFrom('users').select('email').where('id', '=', betaUser.id).executeTakeFirstOrThrow()).email);
}, 120_000);
afterAll(() => h.close());

interface Operation {
  method: string;
  path: string;
  params: string[];
}

async function operations(): Promise<Operation[]> {
  const doc = (await h.request('GET', '/openapi.json')).body as { paths: Record<string, Record<string, unknown>> };
  const out: Operation[] = [];
  for (const [path, ops] of Object.entries(doc.paths)) {
    for (const method of Object.keys(ops)) {
      out.push({ method: method.toUpperCase(), path, params: [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!) });
    }
  }
  return out;
}

const fill = (path: string, value: (param: string) => string) => path.replace(/\{(\w+)\}/g, (_, p: string) => encodeURIComponent(value(p)));
const missing = (param: string) => KINDS[param] ?? (param === 'tenant_id' ? `no-such-tenant-${randomBytes(3).toString('hex')}` : `${param.split('_')[0]}_${randomBytes(8).toString('hex')}`);

describe('cross-tenant probe', () => {
  it('answers every operation on another tenant\'s ids exactly as on ids that do not exist', async () => {
    const ops = (await operations()).filter((o) => o.params.length > 0);
    expect(ops.length).toBeGreaterThan(50);
    const leaks: string[] = [];
    let probed = 0;
    for (const op of ops) {
      const key = `${op.method} ${op.path}`;
      const body = op.method === 'GET' || op.method === 'DELETE' ? undefined : key === 'POST /v1/templates/{template_id}/test' ? { job_id: ids.job_id } : (BODIES[key] ?? {});
      const url = fill(op.path, (p) => ids[p] ?? missing(p));
      const real = await h.request(op.method, url, { token: probe, body });
      const ghost = await h.request(op.method, fill(op.path, missing), { token: probe, body });
      probed++;
      const text = JSON.stringify(real.body);
      if (real.status < 400) leaks.push(`${key}: ${real.status}`);
      else if (real.status !== ghost.status || real.body?.code !== ghost.body?.code) leaks.push(`${key}: ${real.status} ${text} vs ${ghost.status}`);
      else if (![403, 404].includes(real.status)) leaks.push(`${key}: ${real.status} ${text} (expected 404, or 403 for platform operations)`);
      // An id the caller sent may be echoed back ("Job … was not found"); any other beta id is a leak.
      else if ([...betaIds].some((id) => text.includes(id) && !url.includes(encodeURIComponent(id)))) leaks.push(`${key}: the answer names a beta id`);
    }
    expect(leaks).toEqual([]);
    expect(probed).toBeGreaterThan(30);
    expect(probed).toBe(ops.length);
  }, 240_000);

  it('never lists another tenant\'s rows', async () => {
    const lists = (await operations()).filter((o) => o.method === 'GET' && o.params.length === 0);
    let checked = 0;
    for (const op of lists) {
      const res = await h.request('GET', op.path, { token: probe });
      if (res.status === 403) continue;
      const text = JSON.stringify(res.body);
      for (const id of betaIds) expect(text.includes(id), `${op.path} lists ${id}`).toBe(false);
      if (Array.isArray(res.body?.items)) {
        checked++;
        for (const item of res.body.items) if (item && typeof item === 'object' && 'tenant_id' in item) expect(item.tenant_id, op.path).toBe('alpha');
      }
    }
    expect(checked).toBeGreaterThan(5);
  }, 120_000);
});
