// Request log lines keep the tokens that travel in URLs out: the peek endpoints' path and the
// console's invitation link, through the real app and its pino logger.
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loggableUrl } from '../../src/http/request-log.js';
import { type Harness, startHarness } from '../helpers/harness.js';

let h: Harness;
const logs: string[] = [];

beforeAll(async () => {
  const stream = new PassThrough();
  stream.on('data', (chunk: Buffer) => logs.push(chunk.toString('utf8')));
  h = await startHarness({}, { logStream: stream });
}, 60_000);

afterAll(async () => {
  await h.close();
});

describe('request log lines', () => {
  it('name the route without the invitation token a person was sent', async () => {
    const created = await h.request('POST', '/v1/platform/tenants', { token: await h.adminToken(), body: { id: 'logged', name: 'Logged Co', initial_admin_email: 'boss@logged.test' } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const token: string = created.body.invitation.token;
    expect((await h.request('GET', `/v1/auth/invites/${token}`)).status).toBe(200);
    expect((await h.request('GET', `/v1/auth/reset-tokens/${token}`)).status).toBe(404);
    expect((await h.request('GET', `/v1/auth/%69nvites/${token}`)).status).toBe(200);
    await h.request('GET', `/app/accept-invite?token=${token}&step=1`);
    const lines = logs.join('').split('\n').filter((l) => l.includes('"url"'));
    const urls = lines.map((l) => JSON.parse(l).req.url as string);
    expect(urls).toEqual(expect.arrayContaining(['/v1/auth/invites/[redacted]', '/v1/auth/reset-tokens/[redacted]', '/app/accept-invite?token=[redacted]&step=1']));
    expect(logs.join('')).not.toContain(token);
  });
});

describe('loggableUrl', () => {
  it('replaces a path token and query parameters that name a secret, and nothing else', () => {
    expect(loggableUrl('/v1/documents/job_1?limit=5')).toBe('/v1/documents/job_1?limit=5');
    expect(loggableUrl('/v1/auth/invites/abc?x=1')).toBe('/v1/auth/invites/[redacted]?x=1');
    expect(loggableUrl('/v1/auth/invites')).toBe('/v1/auth/invites');
    expect(loggableUrl('/app/reset-password?token=abc&api%5Fkey=k&flag')).toBe('/app/reset-password?token=[redacted]&api%5Fkey=[redacted]&flag');
    expect(loggableUrl('/x?%zz=1')).toBe('/x?%zz=1');
    // Another spelling of the same route, or of one that misses it, still hides the token.
    expect(loggableUrl('/v1/auth/%69nvites/abc')).toBe('/v1/auth/invites/[redacted]');
    expect(loggableUrl('//v1//auth/invites/abc')).toBe('//v1//auth/invites/[redacted]');
    expect(loggableUrl('/v1/auth/reset-tokens//abc/x')).toBe('/v1/auth/reset-tokens//[redacted]/x');
    expect(loggableUrl('/v1/auth/%E0%A4%A/abc')).toBe('/v1/auth/%E0%A4%A/abc');
  });
});
