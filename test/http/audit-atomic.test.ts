// The audit entry and the change it records commit together: when the entry cannot be written,
// the change is rolled back and the client gets 503 audit_unavailable (a retry is then safe).
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_TENANT_ID, type Harness, startHarness } from '../helpers/harness.js';

let h: Harness;
let user: { id: string; token: string | null };

beforeAll(async () => {
  h = await startHarness();
  user = await h.seedUser(DEFAULT_TENANT_ID, 'admin');
});
afterAll(() => h.close());

const displayName = async () =>
  (await h.db.selectFrom('users').select('display_name').where('id', '=', user.id).executeTakeFirstOrThrow()).display_name;
const entries = async (requestId: string) =>
  h.db.selectFrom('audit_log').selectAll().where('request_id', '=', requestId).execute();

async function breakAudit(): Promise<void> {
  await sql`CREATE OR REPLACE FUNCTION quire_test_refuse_audit() RETURNS trigger AS $$ BEGIN RAISE EXCEPTION 'audit store unavailable'; END $$ LANGUAGE plpgsql`.execute(h.db);
  await sql`CREATE TRIGGER quire_test_refuse_audit BEFORE INSERT ON audit_log FOR EACH ROW EXECUTE FUNCTION quire_test_refuse_audit()`.execute(h.db);
}
async function repairAudit(): Promise<void> {
  await sql`DROP TRIGGER IF EXISTS quire_test_refuse_audit ON audit_log`.execute(h.db);
}

describe('audit in the same transaction as the change', () => {
  it('rolls the change back and answers 503 when the audit entry fails', async () => {
    await breakAudit();
    try {
      const res = await h.request('PATCH', '/v1/account/profile', { token: user.token!, body: { display_name: 'Changed' }, headers: { 'x-request-id': 'audit-fail-1' } });
      expect(res.status).toBe(503);
      expect(res.body).toMatchObject({ code: 'audit_unavailable' });
      expect(await displayName()).not.toBe('Changed');

      // A resource created by the request is gone as well.
      const key = await h.request('POST', '/v1/account/api-keys', { token: user.token!, body: { name: 'never-made' } });
      expect(key.status).toBe(503);
      expect(key.body.secret).toBeUndefined();
      expect(await h.db.selectFrom('api_keys').select('id').where('name', '=', 'never-made').execute()).toEqual([]);
    } finally {
      await repairAudit();
    }
    const retry = await h.request('PATCH', '/v1/account/profile', { token: user.token!, body: { display_name: 'Changed' }, headers: { 'x-request-id': 'audit-ok-1' } });
    expect(retry.status).toBe(200);
    expect(await displayName()).toBe('Changed');
    const [entry] = await entries('audit-ok-1');
    expect(entry).toMatchObject({ method: 'PATCH', status_code: 200, actor_user_id: user.id });
  });

  it('keeps nested transactions of a handler inside the request transaction', async () => {
    const policy = await h.request('PATCH', `/v1/admin/tenant-policy/${DEFAULT_TENANT_ID}`, { token: await h.adminToken(), body: { pdf_max_pages: 7 }, headers: { 'x-request-id': 'audit-nested' } });
    expect(policy.status).toBe(200);
    expect(await entries('audit-nested')).toHaveLength(1);
    await breakAudit();
    try {
      const refused = await h.request('PATCH', `/v1/admin/tenant-policy/${DEFAULT_TENANT_ID}`, { token: await h.adminToken(), body: { pdf_max_pages: 3 } });
      expect(refused.status).toBe(503);
    } finally {
      await repairAudit();
    }
    const read = await h.request('GET', `/v1/admin/tenant-policy/${DEFAULT_TENANT_ID}`, { token: await h.adminToken() });
    expect(read.body.effective.pdf_max_pages).toBe(7);
  });
});
