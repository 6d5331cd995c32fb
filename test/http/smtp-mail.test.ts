// Invitations and password resets are mailed through the smtp endpoint in effect for the user's
// tenant (a real SMTP session with smtp-server on loopback); the responses still carry the token.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from '../helpers/harness.js';
import { type LoopbackSmtp, startSmtpServer } from '../helpers/loopback-servers.js';

let h: Harness;
let root: string;
let platformMail: LoopbackSmtp;
let tenantMail: LoopbackSmtp;

async function arrival(server: LoopbackSmtp, to: string) {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    const mail = server.mails.find((m) => m.to.includes(to));
    if (mail) return mail;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`no mail to ${to}`);
}

/** The body of a plain-text mail with soft line breaks (quoted-printable) undone. */
function bodyOf(raw: string): string {
  return raw.replace(/=\r?\n/g, '').replace(/=3D/g, '=');
}

beforeAll(async () => {
  h = await startHarness({ outboundAllow: ['127.0.0.1'] });
  root = await h.adminToken();
  platformMail = await startSmtpServer({ username: 'quire', password: 'platform-smtp-pass' });
  tenantMail = await startSmtpServer(null);
});
afterAll(async () => {
  await platformMail?.close();
  await tenantMail?.close();
  await h?.close();
});

describe('mail of invitations and resets', () => {
  it('sends nothing while no smtp endpoint is configured, and the response carries the invitation', async () => {
    const res = await h.request('POST', '/v1/platform/tenants', { token: root, body: { id: 'quiet', name: 'Quiet', initial_admin_email: 'first@quiet.test' } });
    expect(res.status).toBe(201);
    expect(res.body.invitation.url).toContain('/app/accept-invite?token=');
    await new Promise((r) => setTimeout(r, 300));
    expect(platformMail.mails).toHaveLength(0);
  });

  it('mails the invitation link of a new tenant, an invited user and a password reset through the platform endpoint', async () => {
    const put = await h.request('PUT', '/v1/admin/platform/infra/smtp', {
      token: root,
      body: { host: '127.0.0.1', port: platformMail.port, from: 'Quire <no-reply@quire.test>', credentials: { username: 'quire', password: 'platform-smtp-pass' } },
    });
    expect(put.status).toBe(200);

    const tenant = await h.request('POST', '/v1/platform/tenants', { token: root, body: { id: 'acme', name: 'Acme', initial_admin_email: 'boss@acme.test' } });
    const mail = await arrival(platformMail, 'boss@acme.test');
    expect(mail.from).toBe('no-reply@quire.test');
    expect(mail.raw).toContain('Subject: You are invited to Quire');
    expect(bodyOf(mail.raw)).toContain(tenant.body.invitation.url);

    const admin = await h.seedUser('acme', 'admin');
    const invited = await h.request('POST', '/v1/admin/users', { token: admin.token!, body: { email: 'new@acme.test' } });
    expect(invited.status).toBe(201);
    expect(bodyOf((await arrival(platformMail, 'new@acme.test')).raw)).toContain(invited.body.invitation.url);

    const member = await h.seedUser('acme', 'member', { email: 'member@acme.test' });
    const reset = await h.request('POST', `/v1/admin/users/${member.id}/reset-password`, { token: admin.token! });
    expect(reset.status).toBe(200);
    const resetMail = await arrival(platformMail, 'member@acme.test');
    expect(resetMail.raw).toContain('Subject: Reset your Quire password');
    expect(bodyOf(resetMail.raw)).toContain(reset.body.reset.url);

    // The link in the mail is the real one: it opens the account.
    const token = decodeURIComponent(/token=([^\s&]+)/.exec(bodyOf(resetMail.raw))![1]!);
    const used = await h.request('POST', '/v1/auth/reset-password', { body: { token, new_password: 'a brand new password' } });
    expect(used.status, JSON.stringify(used.body)).toBe(200);
  });

  it("uses the tenant's own smtp endpoint while overrides are enabled", async () => {
    await h.request('PATCH', '/v1/admin/tenant-policy/acme', { token: root, body: { tenant_infra_overrides_enabled: true } });
    const admin = await h.seedUser('acme', 'admin');
    const own = await h.request('PUT', '/v1/admin/tenants/acme/infra/smtp', { token: admin.token!, body: { host: '127.0.0.1', port: tenantMail.port, from: 'acme@acme.test' } });
    expect(own.status, JSON.stringify(own.body)).toBe(200);
    const invited = await h.request('POST', '/v1/admin/users', { token: admin.token!, body: { email: 'second@acme.test' } });
    const mail = await arrival(tenantMail, 'second@acme.test');
    expect(mail.from).toBe('acme@acme.test');
    expect(bodyOf(mail.raw)).toContain(invited.body.invitation.url);
    expect(platformMail.mails.some((m) => m.to.includes('second@acme.test'))).toBe(false);
  });

  it('still answers the invitation when the mail server is unreachable', async () => {
    await h.request('PUT', '/v1/admin/platform/infra/smtp', { token: root, body: { host: '127.0.0.1', port: 1, from: 'q@quire.test' } });
    const res = await h.request('POST', '/v1/platform/tenants', { token: root, body: { id: 'offline', name: 'Offline', initial_admin_email: 'a@offline.test' } });
    expect(res.status).toBe(201);
    expect(res.body.invitation.token).toEqual(expect.any(String));
  });
});
