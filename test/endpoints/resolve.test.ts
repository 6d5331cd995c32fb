// The resolver the model path, the remote OCR engine and the mailer ask: tenant override only
// while the tenant's policy allows it, platform otherwise, credentials opened from the box.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { InfraType } from '../../src/db/endpoints-schema.js';
import { sealingContext } from '../../src/db/sealed-columns.js';
import { resolveForgeEndpoint, resolveInfraEndpoint } from '../../src/domain/endpoints/resolve.js';
import { newId } from '../../src/lib/ids.js';
import { SecretBox } from '../../src/lib/secret-box.js';
import { type Harness, startHarness } from '../helpers/harness.js';

let h: Harness;
const box = new SecretBox(['resolver-test-key']);

async function putInfra(type: InfraType, tenantId: string | null, settings: Record<string, unknown>, credentials: Record<string, string>) {
  const id = randomUUID();
  await h.db
    .insertInto('infra_endpoints')
    .values({
      id,
      endpoint_type: type,
      scope: tenantId ? 'tenant' : 'platform',
      tenant_id: tenantId,
      settings: JSON.stringify(settings),
      credentials_sealed: box.sealJson(credentials, sealingContext('infra_endpoints', id)),
      credential_keys: Object.keys(credentials),
    })
    .execute();
}

async function allowOverrides(tenantId: string, allowed: boolean) {
  await h.db
    .insertInto('tenant_policies')
    .values({ tenant_id: tenantId, values: JSON.stringify({ tenant_infra_overrides_enabled: allowed }) })
    .onConflict((oc) => oc.column('tenant_id').doUpdateSet({ values: JSON.stringify({ tenant_infra_overrides_enabled: allowed }) }))
    .execute();
}

beforeAll(async () => {
  h = await startHarness();
  await h.seedTenant('acme');
  await h.seedTenant('globex');
});
afterAll(async () => h?.close());

describe('resolveInfraEndpoint', () => {
  it('answers null when nothing is configured', async () => {
    expect(await resolveInfraEndpoint(h.db, box, 'acme', 'judge')).toBeNull();
  });

  it('uses the platform endpoint, then the tenant one only while overrides are allowed', async () => {
    await putInfra('vlm', null, { backend: 'anthropic', model: 'claude-platform', base_url: null, aws_region: null, gcp_project: null, gcp_region: null, timeout_seconds: 30, max_retries: 2, price_per_mtok: { input: 3, output: 15 } }, { api_key: 'sk-platform' });
    await putInfra('vlm', 'acme', { backend: 'custom_url', model: 'llama', base_url: 'http://127.0.0.1:9/v1', aws_region: null, gcp_project: null, gcp_region: null, timeout_seconds: 120, max_retries: 3, price_per_mtok: null }, { api_key: 'sk-acme' });

    const platform = await resolveInfraEndpoint(h.db, box, 'acme', 'vlm');
    expect(platform).toMatchObject({ backend: 'anthropic', model: 'claude-platform', credentials: { api_key: 'sk-platform' }, timeout_seconds: 30, max_retries: 2, price_per_mtok: { input: 3, output: 15 }, label: 'platform vlm endpoint' });

    await allowOverrides('acme', true);
    const own = await resolveInfraEndpoint(h.db, box, 'acme', 'vlm');
    expect(own).toMatchObject({ backend: 'custom_url', model: 'llama', base_url: 'http://127.0.0.1:9/v1', credentials: { api_key: 'sk-acme' }, label: 'tenant vlm endpoint' });
    // Another tenant never sees acme's override.
    await allowOverrides('globex', true);
    expect((await resolveInfraEndpoint(h.db, box, 'globex', 'vlm'))?.label).toBe('platform vlm endpoint');

    await allowOverrides('acme', false);
    expect((await resolveInfraEndpoint(h.db, box, 'acme', 'vlm'))?.model).toBe('claude-platform');
  });

  it('takes the overrides flag from a policy the caller already read, in one statement', async () => {
    // A tenant row only: the platform has no judge endpoint.
    await putInfra('judge', 'acme', { backend: 'custom_url', model: 'judge-own', base_url: 'http://127.0.0.1:9/v1', aws_region: null, gcp_project: null, gcp_region: null, timeout_seconds: 30, max_retries: 1, price_per_mtok: null }, { api_key: 'sk-judge' });
    await allowOverrides('acme', false);
    // The caller's flag wins over the stored policy: it is the snapshot the job runs under.
    expect((await resolveInfraEndpoint(h.db, box, 'acme', 'judge', true))?.model).toBe('judge-own');
    expect(await resolveInfraEndpoint(h.db, box, 'acme', 'judge', false)).toBeNull();
    expect(await resolveInfraEndpoint(h.db, box, 'acme', 'judge')).toBeNull();
    // With both rows, the tenant's own comes first when allowed, the platform's otherwise; never another tenant's.
    await putInfra('judge', null, { backend: 'anthropic', model: 'judge-platform', base_url: null, aws_region: null, gcp_project: null, gcp_region: null, timeout_seconds: 30, max_retries: 1, price_per_mtok: null }, { api_key: 'sk-p' });
    expect((await resolveInfraEndpoint(h.db, box, 'acme', 'judge', true))?.model).toBe('judge-own');
    expect((await resolveInfraEndpoint(h.db, box, 'acme', 'judge', false))?.model).toBe('judge-platform');
    expect((await resolveInfraEndpoint(h.db, box, 'globex', 'judge', true))?.model).toBe('judge-platform');
  });

  it('opens smtp and ocr credentials into their own shapes', async () => {
    await putInfra('smtp', null, { host: '127.0.0.1', port: 2525, secure: false, from: 'Quire <no-reply@quire.test>' }, { username: 'u', password: 'p' });
    await putInfra('ocr', null, { base_url: 'http://127.0.0.1:9', timeout_seconds: 60 }, { api_key: 'ocr-key' });
    expect(await resolveInfraEndpoint(h.db, box, 'globex', 'smtp')).toEqual({ host: '127.0.0.1', port: 2525, secure: false, from: 'Quire <no-reply@quire.test>', username: 'u', password: 'p', label: 'platform smtp endpoint' });
    expect(await resolveInfraEndpoint(h.db, box, 'globex', 'ocr')).toEqual({ base_url: 'http://127.0.0.1:9', timeout_seconds: 60, api_key: 'ocr-key', label: 'platform ocr endpoint' });
  });
});

describe('resolveForgeEndpoint', () => {
  it('finds the default, or one by id, only within the tenant', async () => {
    expect(await resolveForgeEndpoint(h.db, box, 'acme')).toBeNull();
    const id = newId('fep');
    await h.db
      .insertInto('forge_endpoints')
      .values({ id, tenant_id: 'acme', name: 'main', backend: 'anthropic', model: 'claude', credentials_sealed: box.sealJson({ api_key: 'sk-forge' }, sealingContext('forge_endpoints', id)), credential_keys: ['api_key'], is_default_for_tenant: true })
      .execute();
    expect(await resolveForgeEndpoint(h.db, box, 'acme')).toMatchObject({ id, backend: 'anthropic', credentials: { api_key: 'sk-forge' }, label: `forge endpoint ${id}` });
    expect((await resolveForgeEndpoint(h.db, box, 'acme', id))?.id).toBe(id);
    expect(await resolveForgeEndpoint(h.db, box, 'globex', id)).toBeNull();
    expect(await resolveForgeEndpoint(h.db, box, 'globex')).toBeNull();
  });
});
