// The CLI's commands and their options, in process: `--help` prints the usage and runs nothing,
// unknown options are refused, and create-admin makes only admins who can sign in.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { main } from '../../src/cli.js';
import { ConfigError, loadConfig } from '../../src/config.js';
import { type Harness, startHarness } from '../helpers/harness.js';

let h: Harness;

beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

/** Runs the CLI with `env` over the process environment; what it printed and the error it threw. */
async function cli(args: string[], env: Record<string, string | undefined> = {}) {
  const saved = { ...process.env };
  const printed: string[] = [];
  const write = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: unknown) => (printed.push(String(chunk)), true));
  Object.assign(process.env, { LOG_LEVEL: 'silent', ...env });
  for (const [k, v] of Object.entries(env)) if (v === undefined) delete process.env[k];
  try {
    const error = await main(args).then(() => null, (err: unknown) => err as Error);
    return { printed: printed.join(''), error };
  } finally {
    write.mockRestore();
    process.env = saved;
  }
}

const nowhere = 'postgres://nobody@127.0.0.1:1/none';

describe('--help', () => {
  it('prints the usage of migrate and rotate-secret-key without running them', async () => {
    for (const command of ['migrate', 'rotate-secret-key', 'create-admin', 'worker', 'serve']) {
      // A database that answers nothing: running the command would fail.
      const { printed, error } = await cli([command, '--help'], { DATABASE_URL: nowhere, QUIRE_SECRET_KEY: 'a-key' });
      expect(error, command).toBeNull();
      expect(printed, command).toContain('Usage:');
    }
  });

  it('refuses an unknown option, naming it', async () => {
    const { error } = await cli(['migrate', '--force'], { DATABASE_URL: nowhere });
    expect(error).toBeInstanceOf(ConfigError);
    expect(error!.message).toContain('--force');
  });
});

describe('rotate-secret-key', () => {
  it('needs QUIRE_SECRET_KEY instead of making a new key in the data dir', async () => {
    const { error } = await cli(['rotate-secret-key'], { DATABASE_URL: h.databaseUrl, QUIRE_SECRET_KEY: undefined });
    expect(error).toBeInstanceOf(ConfigError);
    expect(error!.message).toMatch(/QUIRE_SECRET_KEY/);
  });
});

describe('create-admin', () => {
  const run = (email: string, password = 'a-long-enough-password') => cli(['create-admin', '--email', email, '--password', password], { DATABASE_URL: h.databaseUrl });

  it('makes an admin who can sign in, with the email trimmed', async () => {
    expect((await run('  ops-cli@example.com ')).error).toBeNull();
    const login = await h.request('POST', '/v1/auth/login', { body: { email: 'ops-cli@example.com', password: 'a-long-enough-password' } });
    expect(login.status).toBe(200);
  });

  it('refuses an email that is no address, a password of spaces, and an email already taken in any case', async () => {
    for (const [email, password] of [['notanemail', undefined], ['ops2@example.com', ' '.repeat(12)], ['OPS-CLI@example.com', undefined]] as const) {
      const { error } = await run(email, password);
      expect(error, email).toBeInstanceOf(ConfigError);
    }
    // The existing admin keeps their password.
    expect((await h.request('POST', '/v1/auth/login', { body: { email: 'ops-cli@example.com', password: 'a-long-enough-password' } })).status).toBe(200);
  });
});

describe('configuration', () => {
  it('names DATABASE_URL when its server cannot be reached, without its password', async () => {
    const { error } = await cli(['migrate'], { DATABASE_URL: 'postgres://nobody:s3cret@127.0.0.1:1/none' });
    expect(error).toBeInstanceOf(ConfigError);
    expect(error!.message).toMatch(/^cannot use the PostgreSQL server of DATABASE_URL \(host 127\.0\.0\.1, port 1, database none, user nobody\): .*ECONNREFUSED/);
    expect(error!.message).not.toContain('s3cret');
  });

  it('refuses a port above 65535 before anything starts', () => {
    expect(() => loadConfig({ PORT: '70000' })).toThrow(ConfigError);
    expect(loadConfig({ PORT: '65535' }).port).toBe(65535);
  });
});
