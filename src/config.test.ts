import { describe, expect, it } from 'vitest';
import { ConfigError, envHelp, loadConfig } from './config.js';

describe('config', () => {
  it('applies the decisions.md defaults', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({ port: 8080, host: '127.0.0.1', databaseUrl: null, blobUrl: null, redisUrl: null, maxUploadBytes: 52428800, allowPrivateNetwork: false, logLevel: 'info' });
    expect(c.dataDir.endsWith('.quire')).toBe(true);
    expect(c.workers).toBeGreaterThanOrEqual(1);
  });

  it('parses values and refuses nonsense with the variable named', () => {
    expect(loadConfig({ PORT: '9000', QUIRE_WORKERS: '0', QUIRE_ALLOW_PRIVATE_NETWORK: '1' })).toMatchObject({ port: 9000, workers: 0, allowPrivateNetwork: true });
    expect(() => loadConfig({ QUIRE_MAX_UPLOAD_BYTES: 'lots' })).toThrow(ConfigError);
    expect(() => loadConfig({ QUIRE_WORKERS: '-1' })).toThrow(/QUIRE_WORKERS/);
    expect(loadConfig({}).processMemoryMarkMb).toBe(700);
    expect(loadConfig({ QUIRE_PROCESS_MEMORY_MARK_MB: '1000' }).processMemoryMarkMb).toBe(1000);
    expect(() => loadConfig({ QUIRE_PROCESS_MEMORY_MARK_MB: '50' })).toThrow(/QUIRE_PROCESS_MEMORY_MARK_MB/);
    expect(loadConfig({}).pdfiumMemoryMb).toBe(384);
    expect(loadConfig({}).maxResultMb).toBe(64);
    expect(() => loadConfig({ QUIRE_MAX_RESULT_MB: '0' })).toThrow(/QUIRE_MAX_RESULT_MB must be an integer from 1 to 1024/);
    expect(loadConfig({ QUIRE_PDFIUM_MEMORY_MB: '1024' }).pdfiumMemoryMb).toBe(1024);
    expect(() => loadConfig({ QUIRE_PDFIUM_MEMORY_MB: '4096' })).toThrow(/QUIRE_PDFIUM_MEMORY_MB must be an integer from 64 to 2048/);
    expect(() => loadConfig({ LOG_LEVEL: 'loud' })).toThrow(/^LOG_LEVEL must be one of trace, .*got "loud"/);
    expect(loadConfig({ LOG_LEVEL: 'warn' }).logLevel).toBe('warn');
    expect(() => loadConfig({ DATABASE_URL: 'garbage' })).toThrow(/^DATABASE_URL must be a PostgreSQL URL/);
    // The refused value is not echoed: it may hold a password.
    expect(() => loadConfig({ DATABASE_URL: 'mysql://root:s3cret@db/quire' })).toThrow(/^(?!.*s3cret)DATABASE_URL/);
    expect(loadConfig({ QUIRE_PUBLIC_URL: 'https://quire.example.com/' }).publicUrl).toBe('https://quire.example.com');
    expect(loadConfig({}).publicUrl).toBeNull();
    expect(() => loadConfig({ QUIRE_PUBLIC_URL: 'quire.example.com' })).toThrow(/^QUIRE_PUBLIC_URL must be/);
    expect(() => loadConfig({ QUIRE_PUBLIC_URL: 'ftp://quire.example.com' })).toThrow(/^QUIRE_PUBLIC_URL must be/);
    expect(loadConfig({ DATABASE_URL: 'postgresql://q:pw@db.internal:5432/quire?sslmode=require' }).databaseUrl).toBe('postgresql://q:pw@db.internal:5432/quire?sslmode=require');
  });

  it('lists every variable decisions.md names in the help', () => {
    const help = envHelp();
    for (const name of ['PORT', 'HOST', 'QUIRE_DATA_DIR', 'DATABASE_URL', 'QUIRE_BLOB_URL', 'REDIS_URL', 'QUIRE_WORKERS', 'QUIRE_ADMIN_EMAIL', 'QUIRE_ADMIN_PASSWORD', 'QUIRE_SECRET_KEY', 'QUIRE_MAX_UPLOAD_BYTES', 'QUIRE_ALLOW_PRIVATE_NETWORK', 'LOG_LEVEL']) {
      expect(help).toContain(name);
    }
  });
});
