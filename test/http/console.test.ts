// Serving the web console at /app: the built index for every console path (no caching), hashed
// assets cached for good, no credential needed, and a clear answer when the console is not built.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerConsole } from '../../src/http/console.js';
import type { App } from '../../src/http/context.js';
import { type Harness, startHarness } from '../helpers/harness.js';
import { ensureWebBuilt, webDist } from '../helpers/web-build.js';

let h: Harness;
beforeAll(async () => {
  await ensureWebBuilt();
  h = await startHarness();
});
afterAll(() => h.close());

const get = (url: string) => fetch(`${h.baseUrl}${url}`);

describe('/app', () => {
  it('serves the console index at /app and every path under it, never cached', async () => {
    for (const url of ['/app', '/app/', '/app/jobs/job_123', '/app/accept-invite?token=abc']) {
      const res = await get(url);
      expect(res.status, url).toBe(200);
      expect(res.headers.get('content-type')).toContain('text/html');
      expect(res.headers.get('cache-control')).toBe('no-cache');
      expect(res.headers.get('content-security-policy')).toContain("default-src 'self'");
      expect(await res.text()).toContain('<div id="root">');
    }
  });

  it('serves the hashed assets the index names as immutable, and 404s an unknown asset', async () => {
    const html = await (await get('/app/')).text();
    const assets = [...html.matchAll(/\/app\/assets\/[^"]+/g)].map((m) => m[0]);
    expect(assets.some((a) => a.endsWith('.js'))).toBe(true);
    for (const asset of assets) {
      expect(asset).toMatch(/-[A-Za-z0-9_-]{8}\.(js|css)$/);
      const res = await get(asset);
      expect(res.status, asset).toBe(200);
      expect(res.headers.get('cache-control')).toContain('immutable');
      expect(Number(/max-age=(\d+)/.exec(res.headers.get('cache-control') ?? '')?.[1])).toBeGreaterThanOrEqual(365 * 24 * 3600);
      expect((await res.arrayBuffer()).byteLength).toBe(fs.statSync(path.join(webDist, asset.slice('/app/'.length))).size);
    }
    const missing = await get('/app/assets/index-00000000.js');
    expect(missing.status).toBe(404);
    expect((await missing.json()).code).toBe('route_not_found');
  });

  it('keeps the console out of the API document', async () => {
    const doc = (await (await get('/openapi.json')).json()) as { paths: Record<string, unknown> };
    expect(Object.keys(doc.paths).filter((p) => p.startsWith('/app'))).toEqual([]);
  });

  it('answers 503 with what to do when the console has not been built', async () => {
    const app = Fastify() as unknown as App;
    const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-no-console-'));
    try {
      await registerConsole(app, empty);
      const res = await app.inject({ method: 'GET', url: '/app/' });
      expect(res.statusCode).toBe(503);
      expect(res.json()).toEqual({ detail: expect.stringContaining('npm run build'), code: 'console_not_built' });
    } finally {
      await app.close();
      fs.rmSync(empty, { recursive: true, force: true });
    }
  });
});
