// Walks 65 of the 74 state-changing operations of the API through the real server, one after another as an
// administrator would, and checks the audit entry each leaves: who acted, in which tenant, which
// operation on which resource, and that no secret sent or answered (password, token, key secret,
// credentials, webhook header values) appears anywhere in the trail. Not walked: the review
// actions, forge abort, template tests and the connection and infrastructure round-trip tests.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_EMAIL, type Harness, type Reply, startHarness } from '../helpers/harness.js';
import { FILES, upload, uploadBatch, waitFor, waitForJob } from '../helpers/documents.js';

let h: Harness;
let root: string;
let rootId: string;

/** Every secret the walk sends or receives; none may appear in the trail. */
const secrets = new Set<string>();
const remember = (...values: (string | undefined | null)[]) => values.forEach((v) => v && secrets.add(v));

interface Step {
  method: string;
  path: string;
  token: string;
  tenant?: string;
  body?: unknown;
  status: number;
  /** Expected tenant of the entry (null: a platform entry). */
  entryTenant: string | null;
  /** Expected actor user (undefined: the caller's user is not checked; null: no user). */
  actorUserId?: string | null;
  actorApiKeyId?: string;
  resourceType: string | null;
  /** Expected resource id; a function reads it from the answer. */
  resourceId: string | null | ((reply: Reply) => string);
}

const walked = new Set<string>();
let counter = 0;

async function step(s: Step): Promise<Reply> {
  return checked(s, (requestId) => h.request(s.method, s.path, { token: s.token, tenant: s.tenant, body: s.body, headers: { 'x-request-id': requestId } }));
}

/** Sends a request (`send` is given the request id to send) and checks the entry it left. */
async function checked(s: Step, send: (requestId: string) => Promise<Reply>): Promise<Reply> {
  const requestId = `walk-${++counter}`;
  const res = await send(requestId);
  expect(res.status, `${s.method} ${s.path}: ${JSON.stringify(res.body)}`).toBe(s.status);
  const entry = await entryOf(requestId);
  expect(entry, `${s.method} ${s.path} left no audit entry`).toBeDefined();
  const operationId = operationIds.get(`${s.method} ${routeOf(s.path)}`);
  expect(operationId, `${s.method} ${s.path} is not in the OpenAPI document`).toBeDefined();
  walked.add(`${s.method} ${routeOf(s.path)}`);
  const resourceId = typeof s.resourceId === 'function' ? s.resourceId(res) : s.resourceId;
  expect.soft(entry, `${s.method} ${s.path}`).toMatchObject({
    tenant_id: s.entryTenant,
    action: operationId,
    resource_type: s.resourceType,
    resource_id: resourceId,
    method: s.method,
    path: s.path,
    status_code: s.status,
    request_id: requestId,
  });
  if (s.actorUserId !== undefined) expect.soft(entry.actor.user_id, `${s.method} ${s.path} actor`).toBe(s.actorUserId);
  if (s.actorApiKeyId !== undefined) expect.soft(entry.actor.api_key_id, `${s.method} ${s.path} key`).toBe(s.actorApiKeyId);
  expect.soft(entry.actor.user_id ?? entry.actor.api_key_id, `${s.method} ${s.path} names no actor`).toBeTruthy();
  return res;
}

async function entryOf(requestId: string): Promise<any> {
  const res = await h.request('GET', '/v1/platform/audit?limit=20', { token: root });
  expect(res.status).toBe(200);
  return (res.body.items as any[]).find((e) => e.request_id === requestId);
}

const operationIds = new Map<string, string>();
const templates: string[] = [];
/** `/v1/admin/users/usr_1/promote` → `/v1/admin/users/{user_id}/promote`, from the OpenAPI paths. */
function routeOf(path: string): string {
  const parts = path.split('/');
  const match = templates.find((t) => {
    const tp = t.split('/');
    return tp.length === parts.length && tp.every((seg, i) => (seg.startsWith('{') ? parts[i] !== '' : seg === parts[i]));
  });
  return match ?? path;
}

beforeAll(async () => {
  h = await startHarness({ allowPrivateNetwork: true });
  root = await h.adminToken();
  remember(root);
  rootId = (await h.request('GET', '/v1/me', { token: root })).body.user.id;
  const openapi = (await h.request('GET', '/openapi.json')).body;
  for (const [path, ops] of Object.entries(openapi.paths as Record<string, Record<string, { operationId: string }>>)) {
    templates.push(path);
    for (const [method, op] of Object.entries(ops)) operationIds.set(`${method.toUpperCase()} ${path}`, op.operationId);
  }
  // Literal paths win over templated ones (`/v1/templates/test` before `/v1/templates/{template_id}`).
  templates.sort((a, b) => (a.match(/\{/g)?.length ?? 0) - (b.match(/\{/g)?.length ?? 0));
});
afterAll(() => h?.close());

describe('the audit trail of a walk through every administrative operation', () => {
  it('records each change with actor, tenant, action and resource, and no secret', async () => {
    const NEW_PASSWORD = 'walk-password-one-1';
    remember(NEW_PASSWORD);

    // Tenants.
    const tenant = await step({ method: 'POST', path: '/v1/platform/tenants', token: root, body: { id: 'acme', name: 'Acme', initial_admin_email: 'owner@acme.test' }, status: 201, entryTenant: 'acme', actorUserId: rootId, resourceType: 'tenant', resourceId: 'acme' });
    remember(tenant.body.invitation.token);
    await step({ method: 'PATCH', path: '/v1/platform/tenants/acme', token: root, body: { name: 'Acme Inc' }, status: 200, entryTenant: 'acme', actorUserId: rootId, resourceType: 'tenant', resourceId: 'acme' });
    const accepted = await step({ method: 'POST', path: '/v1/auth/accept-invite', token: '', body: { token: tenant.body.invitation.token, new_password: NEW_PASSWORD }, status: 200, entryTenant: 'acme', resourceType: 'user', resourceId: (r) => r.body.user.id });
    const admin = accepted.body.access_token as string;
    const adminId = accepted.body.user.id as string;
    remember(admin);

    // Policy.
    await step({ method: 'PATCH', path: '/v1/platform/defaults', token: root, body: { review_confidence_floor: 0.65 }, status: 200, entryTenant: null, actorUserId: rootId, resourceType: 'platform_defaults', resourceId: null });
    await step({ method: 'PATCH', path: '/v1/admin/tenant-policy/acme', token: admin, body: { review_confidence_floor: 0.5 }, status: 200, entryTenant: 'acme', actorUserId: adminId, resourceType: 'tenant_policy', resourceId: 'acme' });
    await step({ method: 'DELETE', path: '/v1/admin/tenant-policy/acme', token: admin, status: 200, entryTenant: 'acme', actorUserId: adminId, resourceType: 'tenant_policy', resourceId: 'acme' });
    await step({ method: 'PATCH', path: '/v1/admin/tenant-policy/acme', token: root, body: { tenant_infra_overrides_enabled: true }, status: 200, entryTenant: 'acme', actorUserId: rootId, resourceType: 'tenant_policy', resourceId: 'acme' });

    // Users and invitations.
    const invited = await step({ method: 'POST', path: '/v1/admin/users', token: admin, body: { email: 'member@acme.test' }, status: 201, entryTenant: 'acme', actorUserId: adminId, resourceType: 'user', resourceId: (r) => r.body.id });
    const memberId = invited.body.id as string;
    remember(invited.body.invitation.token);
    const resent = await step({ method: 'POST', path: `/v1/admin/users/${memberId}/resend-invite`, token: admin, status: 200, entryTenant: 'acme', actorUserId: adminId, resourceType: 'user', resourceId: memberId });
    remember(resent.body.invitation.token);
    await step({ method: 'POST', path: `/v1/admin/users/${memberId}/revoke-invite`, token: admin, status: 200, entryTenant: 'acme', actorUserId: adminId, resourceType: 'user', resourceId: memberId });
    const again = await step({ method: 'POST', path: `/v1/admin/users/${memberId}/resend-invite`, token: admin, status: 200, entryTenant: 'acme', actorUserId: adminId, resourceType: 'user', resourceId: memberId });
    remember(again.body.invitation.token);
    const joined = await step({ method: 'POST', path: '/v1/auth/accept-invite', token: '', body: { token: again.body.invitation.token, new_password: NEW_PASSWORD }, status: 200, entryTenant: 'acme', actorUserId: memberId, resourceType: 'user', resourceId: memberId });
    remember(joined.body.access_token);
    for (const action of ['promote', 'demote', 'suspend', 'activate']) {
      await step({ method: 'POST', path: `/v1/admin/users/${memberId}/${action}`, token: admin, status: 200, entryTenant: 'acme', actorUserId: adminId, resourceType: 'user', resourceId: memberId });
    }
    const reset = await step({ method: 'POST', path: `/v1/admin/users/${memberId}/reset-password`, token: admin, status: 200, entryTenant: 'acme', actorUserId: adminId, resourceType: 'user', resourceId: memberId });
    remember(reset.body.reset.token);
    const SECOND_PASSWORD = 'walk-password-two-2';
    remember(SECOND_PASSWORD);
    const afterReset = await step({ method: 'POST', path: '/v1/auth/reset-password', token: '', body: { token: reset.body.reset.token, new_password: SECOND_PASSWORD }, status: 200, entryTenant: 'acme', actorUserId: memberId, resourceType: 'user', resourceId: memberId });
    remember(afterReset.body.access_token);
    const login = await step({ method: 'POST', path: '/v1/auth/login', token: '', body: { email: 'member@acme.test', password: SECOND_PASSWORD }, status: 200, entryTenant: 'acme', actorUserId: memberId, resourceType: 'session', resourceId: (r) => r.body.session_id });
    const member = login.body.access_token as string;
    remember(member);

    // The member's own account.
    await step({ method: 'PATCH', path: '/v1/account/profile', token: member, body: { display_name: 'Member' }, status: 200, entryTenant: 'acme', actorUserId: memberId, resourceType: 'user', resourceId: memberId });
    const THIRD_PASSWORD = 'walk-password-three-3';
    remember(THIRD_PASSWORD);
    await step({ method: 'POST', path: '/v1/auth/change-password', token: member, body: { current_password: SECOND_PASSWORD, new_password: THIRD_PASSWORD }, status: 204, entryTenant: 'acme', actorUserId: memberId, resourceType: 'user', resourceId: memberId });
    const ownKey = await step({ method: 'POST', path: '/v1/account/api-keys', token: member, body: { name: 'mine' }, status: 201, entryTenant: 'acme', actorUserId: memberId, resourceType: 'api_key', resourceId: (r) => r.body.public_id });
    remember(ownKey.body.secret);
    const ownRotated = await step({ method: 'POST', path: `/v1/account/api-keys/${ownKey.body.public_id}/rotate`, token: member, status: 200, entryTenant: 'acme', actorUserId: memberId, resourceType: 'api_key', resourceId: ownKey.body.public_id });
    remember(ownRotated.body.secret);
    await step({ method: 'POST', path: `/v1/account/api-keys/${ownKey.body.public_id}/revoke`, token: member, status: 200, entryTenant: 'acme', actorUserId: memberId, resourceType: 'api_key', resourceId: ownKey.body.public_id });
    const second = await h.login('member@acme.test', THIRD_PASSWORD);
    remember(second);
    const sessions = (await h.request('GET', '/v1/auth/sessions', { token: member })).body.items as { session_id: string; current: boolean }[];
    const other = sessions.find((s) => !s.current) ?? sessions[0]!;
    await step({ method: 'POST', path: `/v1/auth/sessions/${other.session_id}/revoke`, token: member, status: 200, entryTenant: 'acme', actorUserId: memberId, resourceType: 'session', resourceId: other.session_id });
    await step({ method: 'POST', path: '/v1/auth/logout', token: member, status: 204, entryTenant: 'acme', actorUserId: memberId, resourceType: 'session', resourceId: expect.stringMatching(/^ses_/) as never });

    // Tenant-wide keys; the key then acts itself.
    const key = await step({ method: 'POST', path: '/v1/admin/api-keys', token: admin, body: { name: 'sync', role: 'admin' }, status: 201, entryTenant: 'acme', actorUserId: adminId, resourceType: 'api_key', resourceId: (r) => r.body.public_id });
    remember(key.body.secret);
    const rotated = await step({ method: 'POST', path: `/v1/admin/api-keys/${key.body.public_id}/rotate`, token: admin, status: 200, entryTenant: 'acme', actorUserId: adminId, resourceType: 'api_key', resourceId: key.body.public_id });
    remember(rotated.body.secret);
    const byKey = await step({ method: 'POST', path: '/v1/admin/users', token: rotated.body.secret, body: { email: 'bykey@acme.test' }, status: 201, entryTenant: 'acme', actorUserId: null, actorApiKeyId: key.body.public_id, resourceType: 'user', resourceId: (r) => r.body.id });
    remember(byKey.body.invitation.token);
    await step({ method: 'DELETE', path: `/v1/admin/users/${byKey.body.id}`, token: admin, status: 204, entryTenant: 'acme', actorUserId: adminId, resourceType: 'user', resourceId: byKey.body.id });
    await step({ method: 'POST', path: `/v1/admin/api-keys/${key.body.public_id}/revoke`, token: admin, status: 200, entryTenant: 'acme', actorUserId: adminId, resourceType: 'api_key', resourceId: key.body.public_id });

    // Connections: credentials and webhook header values are secrets.
    remember('walk-webhook-signing-secret', 'walk-header-value-x-team', 'walk-header-value-renewed');
    const hook = await step({
      method: 'POST', path: '/v1/admin/connections', token: admin, status: 201, entryTenant: 'acme', actorUserId: adminId, resourceType: 'connection', resourceId: (r) => r.body.id,
      body: { name: 'hook', protocol: 'webhook', direction: 'destination', config: { url: 'https://hooks.example.com/quire', headers: { 'X-Team': 'walk-header-value-x-team' } }, credentials: { secret: 'walk-webhook-signing-secret' } },
    });
    await step({
      method: 'PATCH', path: `/v1/admin/connections/${hook.body.id}`, token: admin, status: 200, entryTenant: 'acme', actorUserId: adminId, resourceType: 'connection', resourceId: hook.body.id,
      body: { name: 'hook-2', config: { url: 'https://hooks.example.com/quire', headers: { 'X-Team': 'walk-header-value-renewed' } } },
    });
    await step({ method: 'DELETE', path: `/v1/admin/connections/${hook.body.id}`, token: admin, status: 204, entryTenant: 'acme', actorUserId: adminId, resourceType: 'connection', resourceId: hook.body.id });

    // Forge endpoints and infrastructure endpoints.
    remember('sk-walk-forge-1', 'sk-walk-forge-2', 'walk-ocr-key-1', 'walk-ocr-key-2');
    const fep = await step({ method: 'POST', path: '/v1/admin/forge-endpoints', token: admin, body: { name: 'claude', backend: 'anthropic', model: 'claude-sonnet-4-5', credentials: { api_key: 'sk-walk-forge-1' } }, status: 201, entryTenant: 'acme', actorUserId: adminId, resourceType: 'forge_endpoint', resourceId: (r) => r.body.id });
    await step({ method: 'PUT', path: `/v1/admin/forge-endpoints/${fep.body.id}`, token: admin, body: { credentials: { api_key: 'sk-walk-forge-2' } }, status: 200, entryTenant: 'acme', actorUserId: adminId, resourceType: 'forge_endpoint', resourceId: fep.body.id });
    await step({ method: 'POST', path: `/v1/admin/forge-endpoints/${fep.body.id}/set-default`, token: admin, status: 200, entryTenant: 'acme', actorUserId: adminId, resourceType: 'forge_endpoint', resourceId: fep.body.id });
    await step({ method: 'DELETE', path: `/v1/admin/forge-endpoints/${fep.body.id}`, token: admin, status: 204, entryTenant: 'acme', actorUserId: adminId, resourceType: 'forge_endpoint', resourceId: fep.body.id });
    await step({ method: 'PUT', path: '/v1/admin/platform/infra/ocr', token: root, body: { base_url: 'https://ocr.example.com', credentials: { api_key: 'walk-ocr-key-1' } }, status: 200, entryTenant: null, actorUserId: rootId, resourceType: 'infra_endpoint', resourceId: 'platform:ocr' });
    await step({ method: 'PUT', path: '/v1/admin/tenants/acme/infra/ocr', token: admin, body: { base_url: 'https://ocr.acme.example.com', credentials: { api_key: 'walk-ocr-key-2' } }, status: 200, entryTenant: 'acme', actorUserId: adminId, resourceType: 'infra_endpoint', resourceId: 'acme:ocr' });
    await step({ method: 'DELETE', path: '/v1/admin/tenants/acme/infra/ocr', token: admin, status: 204, entryTenant: 'acme', actorUserId: adminId, resourceType: 'infra_endpoint', resourceId: 'acme:ocr' });

    // Templates.
    const template = await step({ method: 'POST', path: '/v1/templates', token: admin, body: { name: 'invoice', json_schema: { type: 'object', properties: { total: { type: 'string' } } } }, status: 201, entryTenant: 'acme', actorUserId: adminId, resourceType: 'template', resourceId: (r) => r.body.id });
    const tid = template.body.id as string;
    await step({ method: 'PUT', path: `/v1/templates/${tid}`, token: admin, body: { name: 'invoice', description: 'Invoices', json_schema: { type: 'object', properties: { total: { type: 'string' } } } }, status: 200, entryTenant: 'acme', actorUserId: adminId, resourceType: 'template', resourceId: tid });
    await step({ method: 'POST', path: `/v1/templates/${tid}/deactivate`, token: admin, status: 200, entryTenant: 'acme', actorUserId: adminId, resourceType: 'template', resourceId: tid });
    await step({ method: 'POST', path: `/v1/templates/${tid}/activate`, token: admin, status: 200, entryTenant: 'acme', actorUserId: adminId, resourceType: 'template', resourceId: tid });
    await step({ method: 'DELETE', path: `/v1/templates/${tid}`, token: admin, status: 204, entryTenant: 'acme', actorUserId: adminId, resourceType: 'template', resourceId: tid });

    // Documents and batches (no workers: jobs stay queued).
    const documentStep = { method: 'POST', path: '/v1/documents', token: admin, status: 202, entryTenant: 'acme', actorUserId: adminId, resourceType: 'job', resourceId: (r: Reply) => r.body.job_id };
    const job = await checked(documentStep, (requestId) => upload(h, admin, FILES.invoice, { processing_mode: 'canonical' }, { 'x-request-id': requestId }));
    await step({ method: 'POST', path: `/v1/documents/${job.body.job_id}/cancel`, token: admin, status: 200, entryTenant: 'acme', actorUserId: adminId, resourceType: 'job', resourceId: job.body.job_id });
    await step({ method: 'DELETE', path: `/v1/documents/${job.body.job_id}`, token: admin, status: 204, entryTenant: 'acme', actorUserId: adminId, resourceType: 'job', resourceId: job.body.job_id });
    await step({ method: 'POST', path: `/v1/documents/${job.body.job_id}/restore`, token: admin, status: 200, entryTenant: 'acme', actorUserId: adminId, resourceType: 'job', resourceId: job.body.job_id });
    for (const action of ['reprocess', 'cancel', 'retry']) {
      await step({ method: 'POST', path: `/v1/documents/${job.body.job_id}/${action}`, token: admin, body: action === 'reprocess' ? {} : undefined, status: 200, entryTenant: 'acme', actorUserId: adminId, resourceType: 'job', resourceId: job.body.job_id });
    }
    const batchStep = { method: 'POST', path: '/v1/batches', token: admin, status: 202, entryTenant: 'acme', actorUserId: adminId, resourceType: 'batch', resourceId: (r: Reply) => r.body.batch_id };
    const batch = await checked(batchStep, (requestId) => uploadBatch(h, admin, [FILES.invoice], { name: 'walk' }, { 'x-request-id': requestId }));
    await step({ method: 'POST', path: `/v1/batches/${batch.body.batch_id}/cancel`, token: admin, status: 200, entryTenant: 'acme', actorUserId: adminId, resourceType: 'batch', resourceId: batch.body.batch_id });
    for (const action of ['reconcile', 'retry-failed', 'cancel', 'reprocess']) {
      await step({ method: 'POST', path: `/v1/batches/${batch.body.batch_id}/${action}`, token: admin, body: action === 'reprocess' ? {} : undefined, status: 200, entryTenant: 'acme', actorUserId: adminId, resourceType: 'batch', resourceId: batch.body.batch_id });
    }
    await step({ method: 'POST', path: '/v1/admin/jobs/recover-stale', token: admin, status: 200, entryTenant: 'acme', actorUserId: adminId, resourceType: null, resourceId: null });

    // A platform admin acting in the tenant through X-Tenant-Id files the entry under that tenant.
    await step({ method: 'POST', path: '/v1/admin/users', token: root, tenant: 'acme', body: { email: 'hired@acme.test', role: 'admin' }, status: 201, entryTenant: 'acme', actorUserId: rootId, resourceType: 'user', resourceId: (r) => { remember(r.body.invitation.token); return r.body.id; } });

    // Suspension, reactivation and deletion of a tenant.
    await step({ method: 'POST', path: '/v1/platform/tenants/acme/suspend', token: root, status: 200, entryTenant: 'acme', actorUserId: rootId, resourceType: 'tenant', resourceId: 'acme' });
    await step({ method: 'POST', path: '/v1/platform/tenants/acme/activate', token: root, status: 200, entryTenant: 'acme', actorUserId: rootId, resourceType: 'tenant', resourceId: 'acme' });
    await step({ method: 'DELETE', path: '/v1/platform/tenants/acme', token: root, status: 204, entryTenant: 'acme', actorUserId: rootId, resourceType: 'tenant', resourceId: 'acme' });

    const trail = JSON.stringify((await h.request('GET', '/v1/platform/audit?limit=200', { token: root })).body.items);
    for (const secret of secrets) expect.soft(trail.includes(secret), `the trail holds the secret ${secret.slice(0, 12)}…`).toBe(false);
    expect(trail).toContain(ADMIN_EMAIL);
    // The next walk adds what needs finished jobs.
    expect(walked.size).toBe(57);
  });
});

describe('the audit trail of the operations on finished work', () => {
  it('records drafts, classification, re-extraction and the forge like every other change', async () => {
    // Its own server with a worker, so that jobs finish.
    const outer = h;
    h = await startHarness({}, { workers: 1 });
    try {
      root = await h.adminToken();
      await h.seedTenant('initech');
      const admin = await h.seedUser('initech', 'admin');
      const t = admin.token!;
      const on = { token: t, entryTenant: 'initech', actorUserId: admin.id };
      const job = await checked({ ...on, method: 'POST', path: '/v1/documents', status: 202, resourceType: 'job', resourceId: (r) => r.body.job_id }, (requestId) =>
        upload(h, t, FILES.invoice, { processing_mode: 'canonical' }, { 'x-request-id': requestId }),
      );
      const jobId = job.body.job_id as string;
      expect((await waitForJob(h, t, jobId)).status).toBe('completed');

      const draft = await step({ ...on, method: 'POST', path: '/v1/templates/drafts', body: { job_ids: [jobId], name: 'walked' }, status: 201, resourceType: 'template_draft', resourceId: (r) => r.body.id });
      await step({ ...on, method: 'PATCH', path: `/v1/templates/drafts/${draft.body.id}`, body: { proposed_name: 'walked-two' }, status: 200, resourceType: 'template_draft', resourceId: draft.body.id });
      await step({ ...on, method: 'DELETE', path: `/v1/templates/drafts/${draft.body.id}`, status: 200, resourceType: 'template_draft', resourceId: draft.body.id });
      const kept = await step({ ...on, method: 'POST', path: '/v1/templates/drafts', body: { job_ids: [jobId], name: 'walked-kept' }, status: 201, resourceType: 'template_draft', resourceId: (r) => r.body.id });
      await step({ ...on, method: 'POST', path: `/v1/templates/drafts/${kept.body.id}/accept`, status: 200, resourceType: 'template_draft', resourceId: kept.body.id });
      // Classification changes nothing: its entry names no resource.
      await step({ ...on, method: 'POST', path: '/v1/templates/classify', body: { job_id: jobId }, status: 200, resourceType: null, resourceId: null });
      await step({ ...on, method: 'POST', path: `/v1/documents/${jobId}/reextract`, body: {}, status: 200, resourceType: 'job', resourceId: jobId });
      await waitForJob(h, t, jobId);

      const forge = await step({ ...on, method: 'POST', path: '/v1/templates/forge/jobs', body: { sample_job_ids: [jobId] }, status: 202, resourceType: 'forge_job', resourceId: (r) => r.body.id });
      await waitFor('the forge job', async () => {
        const res = await h.request('GET', `/v1/templates/forge/jobs/${forge.body.id}`, { token: t });
        return ['succeeded', 'failed'].includes(res.body.status);
      });
      await step({ ...on, method: 'POST', path: `/v1/templates/forge/jobs/${forge.body.id}/promote`, body: { name: 'forged' }, status: 200, resourceType: 'forge_job', resourceId: forge.body.id });
      const trail = JSON.stringify((await h.request('GET', '/v1/platform/audit?limit=200', { token: root })).body.items);
      for (const secret of [t, root]) expect(trail.includes(secret)).toBe(false);
      expect(walked.size).toBe(65);
    } finally {
      await h.close();
      h = outer;
    }
  });
});
