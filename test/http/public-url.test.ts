// Invitation and reset links point at QUIRE_PUBLIC_URL when it is set, whatever Host the request
// carried: a forged Host must not put another site's address into a mailed link.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from '../helpers/harness.js';

let h: Harness;
let admin: string;

beforeAll(async () => {
  h = await startHarness({ publicUrl: 'https://quire.example.com/docs-team' });
  await h.seedTenant('acme');
  admin = (await h.seedUser('acme', 'admin')).token!;
});
afterAll(() => h.close());

describe('QUIRE_PUBLIC_URL', () => {
  it('is the address of invitation and reset links, not the Host header', async () => {
    const invited = await h.request('POST', '/v1/admin/users', { token: admin, body: { email: 'new@acme.test' }, headers: { host: 'evil.example' } });
    expect(invited.status, JSON.stringify(invited.body)).toBe(201);
    expect(invited.body.invitation.url).toBe(`https://quire.example.com/docs-team/app/accept-invite?token=${encodeURIComponent(invited.body.invitation.token)}`);
    const member = await h.seedUser('acme', 'member');
    const reset = await h.request('POST', `/v1/admin/users/${member.id}/reset-password`, { token: admin, headers: { host: 'evil.example' } });
    expect(reset.status, JSON.stringify(reset.body)).toBe(200);
    expect(reset.body.reset.url).toMatch(/^https:\/\/quire\.example\.com\/docs-team\/app\//);
  });
});
