// `quire rotate-secret-key`: after it, every sealed credential opens with the new key alone, the
// endpoints still work, and a value no configured key opens is reported (exit code 1), never lost.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli.js';
import { resolveForgeEndpoint, resolveInfraEndpoint } from '../../src/domain/endpoints/resolve.js';
import { SecretBox } from '../../src/lib/secret-box.js';
import { type Harness, startHarness } from '../helpers/harness.js';

let h: Harness;
let root: string;

async function runCli(secretKey: string): Promise<number> {
  const saved = { ...process.env };
  const savedExit = process.exitCode;
  process.env.DATABASE_URL = h.databaseUrl;
  process.env.QUIRE_SECRET_KEY = secretKey;
  process.env.LOG_LEVEL = 'silent';
  process.exitCode = 0;
  try {
    await main(['rotate-secret-key']);
    return Number(process.exitCode ?? 0);
  } finally {
    process.env = saved;
    process.exitCode = savedExit;
  }
}

beforeAll(async () => {
  h = await startHarness({ secretKey: 'the-old-key' });
  root = await h.adminToken();
  const forge = await h.request('POST', '/v1/admin/forge-endpoints', { token: root, body: { name: 'claude', backend: 'anthropic', model: 'claude-sonnet-4-5', credentials: { api_key: 'sk-before-rotation' } } });
  expect(forge.status).toBe(201);
  const smtp = await h.request('PUT', '/v1/admin/platform/infra/smtp', { token: root, body: { host: 'mail.example.com', port: 587, from: 'q@example.com', credentials: { username: 'u', password: 'smtp-before-rotation' } } });
  expect(smtp.status).toBe(200);
});
afterAll(async () => h?.close());

describe('quire rotate-secret-key', () => {
  it('re-seals every credential under the first key, so the old key can be dropped', async () => {
    const oldBox = new SecretBox(['the-old-key']);
    const newOnly = new SecretBox(['the-new-key']);
    const before = await h.db.selectFrom('infra_endpoints').select('credentials_sealed').executeTakeFirstOrThrow();
    expect(oldBox.needsResealing(before.credentials_sealed!)).toBe(false);
    await expect(resolveInfraEndpoint(h.db, newOnly, 'default', 'smtp')).rejects.toThrow(/not among the configured/);

    expect(await runCli('the-new-key,the-old-key')).toBe(0);

    for (const table of ['forge_endpoints', 'infra_endpoints'] as const) {
      const rows = await h.db.selectFrom(table).select('credentials_sealed').execute();
      expect(rows.length).toBeGreaterThan(0);
      for (const row of rows) expect(newOnly.needsResealing(row.credentials_sealed!)).toBe(false);
    }
    expect(await resolveInfraEndpoint(h.db, newOnly, 'default', 'smtp')).toMatchObject({ username: 'u', password: 'smtp-before-rotation' });
    expect((await resolveForgeEndpoint(h.db, newOnly, 'default'))?.credentials).toEqual({ api_key: 'sk-before-rotation' });

    // Running it again changes nothing.
    const sealed = await h.db.selectFrom('forge_endpoints').select('credentials_sealed').executeTakeFirstOrThrow();
    expect(await runCli('the-new-key,the-old-key')).toBe(0);
    expect((await h.db.selectFrom('forge_endpoints').select('credentials_sealed').executeTakeFirstOrThrow()).credentials_sealed).toBe(sealed.credentials_sealed);
  });

  it('reports a value no configured key opens and leaves it as it was', async () => {
    const foreign = new SecretBox(['a-key-nobody-configured']);
    const row = await h.db.selectFrom('infra_endpoints').select(['id', 'credentials_sealed']).executeTakeFirstOrThrow();
    const stranger = foreign.sealJson({ username: 'u', password: 'p' }, `infra_endpoints:${row.id}`);
    await h.db.updateTable('infra_endpoints').set({ credentials_sealed: stranger }).where('id', '=', row.id).execute();
    expect(await runCli('the-newest-key,the-new-key')).toBe(1);
    expect((await h.db.selectFrom('infra_endpoints').select('credentials_sealed').where('id', '=', row.id).executeTakeFirstOrThrow()).credentials_sealed).toBe(stranger);
    // The readable forge credentials moved on to the newest key all the same.
    const forge = await h.db.selectFrom('forge_endpoints').select('credentials_sealed').executeTakeFirstOrThrow();
    expect(new SecretBox(['the-newest-key']).needsResealing(forge.credentials_sealed!)).toBe(false);
  });
});
