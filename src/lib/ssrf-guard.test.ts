import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertOutboundAllowed, createGuardedFetch, guardedLookup, guardOptionsFromConfig, isPublicAddress, OutboundBlockedError } from './ssrf-guard.js';

const blocked = { allowPrivateNetwork: false };

describe('address classes', () => {
  it.each(['127.0.0.1', '10.1.2.3', '172.16.0.1', '192.168.1.1', '169.254.169.254', '0.0.0.0', '::1', 'fe80::1', 'fd00::1', '::ffff:127.0.0.1', '::127.0.0.1', '::7f00:1', '::808:808', '100.64.0.1'])(
    '%s is not public',
    (address) => expect(isPublicAddress(address)).toBe(false),
  );
  it.each(['8.8.8.8', '1.1.1.1', '2606:4700:4700::1111'])('%s is public', (address) => expect(isPublicAddress(address)).toBe(true));
});

describe('assertOutboundAllowed', () => {
  it('refuses loopback, link-local (cloud metadata) and private hosts, literal or by name', async () => {
    for (const url of ['http://127.0.0.1:9/x', 'http://169.254.169.254/latest/meta-data', 'http://[::1]/', 'http://localhost:8080/', 'http://10.0.0.5/']) {
      await expect(assertOutboundAllowed(url, blocked)).rejects.toBeInstanceOf(OutboundBlockedError);
    }
  });
  it('lets the platform allow private networks, or single addresses', async () => {
    await expect(assertOutboundAllowed('http://127.0.0.1/', { allowPrivateNetwork: true })).resolves.toBeUndefined();
    const options = guardOptionsFromConfig({ allowPrivateNetwork: false, outboundAllow: ['10.0.0.0/8'] });
    await expect(assertOutboundAllowed('http://10.9.8.7/', options)).resolves.toBeUndefined();
    await expect(assertOutboundAllowed('http://192.168.0.1/', options)).rejects.toThrow(/192\.168\.0\.1 \(private\)/);
  });
  it('rejects a malformed allow list', () => {
    expect(() => guardOptionsFromConfig({ allowPrivateNetwork: false, outboundAllow: ['nonsense'] })).toThrow(/QUIRE_OUTBOUND_ALLOW/);
  });
});

describe('createGuardedFetch', () => {
  let server: http.Server;
  let port = 0;
  beforeAll(async () => {
    server = http.createServer((req, res) => {
      if (req.url === '/seen') return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(req.headers));
      if (req.url === '/same-origin') return void res.writeHead(307, { location: `http://127.0.0.1:${port}/seen` }).end();
      if (req.url === '/other-origin') return void res.writeHead(307, { location: `http://localhost:${port}/seen` }).end();
      if (req.url === '/hop') return void res.writeHead(302, { location: `http://127.0.0.1:${port}/ok` }).end();
      if (req.url === '/escape') return void res.writeHead(302, { location: `http://127.0.0.2:${port}/ok` }).end();
      if (req.url === '/name') return void res.writeHead(307, { location: `http://localhost:${port}/ok` }).end();
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('refuses before connecting when the target is private', async () => {
    await expect(createGuardedFetch(blocked)(`http://127.0.0.1:${port}/ok`)).rejects.toBeInstanceOf(OutboundBlockedError);
  });

  it('follows redirects and checks every hop', async () => {
    const onlyThisHost = guardOptionsFromConfig({ allowPrivateNetwork: false, outboundAllow: ['127.0.0.1'] });
    const guarded = createGuardedFetch(onlyThisHost);
    const response = await guarded(`http://127.0.0.1:${port}/hop`);
    expect(response.status).toBe(200);
    expect(await response.text()).toBe('ok');
    await expect(guarded(`http://127.0.0.1:${port}/escape`)).rejects.toThrow(/127\.0\.0\.2 \(loopback\)/);
  });

  it('sends credentials on to the same origin only: a redirect elsewhere drops every header that names a secret', async () => {
    const guarded = createGuardedFetch({ allowPrivateNetwork: true });
    const headers = { authorization: 'Bearer K-1', 'x-api-key': 'K-2', 'api-key': 'K-3', 'x-goog-api-key': 'K-4', cookie: 'c=K-5', 'x-team': 'ops' };
    const same = await (await guarded(`http://127.0.0.1:${port}/same-origin`, { headers })).json();
    expect(same).toMatchObject(headers);
    const other = (await (await guarded(`http://127.0.0.1:${port}/other-origin`, { headers })).json()) as Record<string, string>;
    expect(other['x-team']).toBe('ops');
    for (const name of ['authorization', 'x-api-key', 'api-key', 'x-goog-api-key', 'cookie']) expect(other, name).not.toHaveProperty(name);
  });

  it('checks the socket lookup too, so a name re-resolving to a refused address fails at connect time', async () => {
    const lookup = guardedLookup(blocked);
    const error = await new Promise<unknown>((resolve) => lookup('localhost', {}, (err) => resolve(err)));
    expect(error).toBeInstanceOf(OutboundBlockedError);
    const allowed = await new Promise<unknown>((resolve) => guardedLookup({ allowPrivateNetwork: true })('localhost', {}, (err, address) => resolve(err ?? address)));
    expect(allowed).toMatch(/^(127\.0\.0\.1|::1)$/);
  });

  it('reaches loopback when private networks are allowed', async () => {
    const response = await createGuardedFetch({ allowPrivateNetwork: true })(`http://127.0.0.1:${port}/ok`);
    expect(response.status).toBe(200);
    await response.text();
  });
});
