// Every environment variable Quire reads, parsed and typed in one place.
// `quire serve --help` prints ENV_VARS, so a new variable is documented by adding it here.
import os from 'node:os';
import path from 'node:path';

/** Resident memory above which a pipeline thread is ended after its document (QUIRE_PROCESS_MEMORY_MARK_MB). */
export const DEFAULT_PROCESS_MEMORY_MARK_MB = 700;
/**
 * WebAssembly memory the PDF parser (PDFium) of one pipeline thread may grow to
 * (QUIRE_PDFIUM_MEMORY_MB). The PDFs of the test data peak at 167 MB, rendering a page for OCR;
 * bench/pdfium-memory.ts measures it.
 */
export const DEFAULT_PDFIUM_MEMORY_MB = 384;
/**
 * The largest canonical document a job may produce, as JSON (QUIRE_MAX_RESULT_MB). The documents of
 * the test data make at most 1.4 MB, a page at most 77 KB (PDF) or 0.5 MB (a dense text page):
 * 200 dense PDF pages make about 15 MB. bench/result-size.ts measures it.
 */
export const DEFAULT_MAX_RESULT_MB = 64;

export interface Config {
  port: number;
  host: string;
  dataDir: string;
  databaseUrl: string | null;
  /** Whether the hottest statements run as named, server-side prepared statements. */
  dbPreparedStatements: boolean;
  blobUrl: string | null;
  redisUrl: string | null;
  /** Prefix of every Redis key Quire writes (several deployments or test runs can share one Redis). */
  redisKeyPrefix: string;
  /** Sign-in and other public auth actions allowed per client IP per minute. */
  authRateLimitPerIp: number;
  /** Sign-in attempts allowed per account (email) per minute, on top of the failed-login lockout. */
  loginRateLimitPerAccount: number;
  workers: number;
  /** S3-compatible endpoint (MinIO, R2, ...); null = AWS itself. Credentials come from the AWS_* variables. */
  s3Endpoint: string | null;
  s3Region: string;
  /** Path-style bucket addressing (http://host/bucket/key), which MinIO and most self-hosted stores need. */
  s3ForcePathStyle: boolean;
  /** A claimed job's lease; a worker heartbeats at a third of it, and a lease past it is stale. */
  jobLeaseSeconds: number;
  /** Longest one run of a job may take before it fails with `timeout`. */
  jobTimeoutSeconds: number;
  /** Longest OCR of one page; a page over it is kept as `ocr_failed` and the job goes on. */
  ocrPageTimeoutSeconds: number;
  /** Runs a job gets (crashes, lost workers, transient errors) before it fails for good. */
  jobMaxAttempts: number;
  /** A pipeline thread idle this long is ended (its memory goes back to the system); 0 keeps it. */
  pipelineIdleSeconds: number;
  /** 0: half the process's pipeline threads, at least 1. */
  ocrPagesAtOnce: number;
  /** Resident memory of the process past which a pipeline thread is ended after its document. */
  processMemoryMarkMb: number;
  /** WebAssembly memory PDFium may grow to in each pipeline thread; a document needing more fails with `resource_limit`. */
  pdfiumMemoryMb: number;
  /** Largest canonical document (JSON) a job may produce; a larger one fails with `resource_limit`. */
  maxResultMb: number;
  /** How often each worker process looks for stale leases (under an advisory lock, so one at a time). */
  recoveryIntervalSeconds: number;
  adminEmail: string | null;
  adminPassword: string | null;
  secretKey: string | null;
  maxUploadBytes: number;
  allowPrivateNetwork: boolean;
  /** Private addresses or CIDR ranges outbound calls may reach even without allowPrivateNetwork. */
  outboundAllow: string[];
  logLevel: string;
  /** Root every `local` connection path stays under. */
  localRoot: string;
  /** PEM file of extra certificate authorities trusted for webhook deliveries (a private CA). */
  extraCaCerts: string | null;
  /** A claimed delivery's lease: past it, another worker sends it again (same delivery id). */
  deliveryLeaseSeconds: number;
  /** First retry delay of a failed delivery; doubles per attempt (capped at an hour), with jitter. */
  deliveryRetryBaseMs: number;
  /** A source poll's lease on its connection, extended at a third of it; past it, another worker may poll. */
  sourceLeaseSeconds: number;
  sessionIdleHours: number;
  sessionMaxDays: number;
  /** Browser origins allowed to call the API across origins (CORS); empty allows none. */
  /** QUIRE_PUBLIC_URL: the address in invitation and reset links; null = the caller's Host. */
  publicUrl: string | null;
  corsOrigins: string[];
}

interface EnvVar {
  name: string;
  default: string;
  description: string;
}

export const ENV_VARS: EnvVar[] = [
  { name: 'PORT', default: '8080', description: 'HTTP port' },
  { name: 'HOST', default: '127.0.0.1', description: 'HTTP bind address (0.0.0.0 to listen on every interface)' },
  { name: 'QUIRE_DATA_DIR', default: './.quire', description: 'embedded database, blobs and the generated secret key' },
  { name: 'DATABASE_URL', default: '(unset: embedded PostgreSQL)', description: 'PostgreSQL 15+ connection string' },
  { name: 'QUIRE_DB_PREPARED_STATEMENTS', default: '1', description: 'run the hottest statements (claim, settle, the job read) as server-side prepared statements, planned once per connection; 0 behind a pooler that cannot carry them (PgBouncer before 1.21 in transaction mode)' },
  { name: 'QUIRE_BLOB_URL', default: '(unset: local disk)', description: 's3://bucket/prefix for S3-compatible blob storage' },
  { name: 'REDIS_URL', default: '(unset: in-process)', description: 'Redis for shared rate-limit counters' },
  { name: 'QUIRE_REDIS_PREFIX', default: 'quire:', description: 'prefix of every Redis key Quire writes' },
  { name: 'QUIRE_AUTH_RATE_LIMIT_PER_IP', default: '60', description: 'sign-ins (and invite/reset redemptions) per client IP per minute' },
  { name: 'QUIRE_LOGIN_RATE_LIMIT_PER_ACCOUNT', default: '20', description: 'sign-in attempts per account per minute' },
  { name: 'QUIRE_WORKERS', default: '(number of cores)', description: 'in-process workers for `serve`; 0 = none' },
  { name: 'QUIRE_S3_ENDPOINT', default: '(unset: AWS)', description: 'endpoint of an S3-compatible store (MinIO, R2); credentials from AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY' },
  { name: 'QUIRE_S3_REGION', default: '$AWS_REGION or us-east-1', description: 'region for QUIRE_BLOB_URL' },
  { name: 'QUIRE_S3_FORCE_PATH_STYLE', default: '1 when QUIRE_S3_ENDPOINT is set', description: 'path-style bucket addressing' },
  { name: 'QUIRE_JOB_LEASE_SECONDS', default: '30', description: 'lease of a claimed job; a worker that stops heartbeating loses it' },
  { name: 'QUIRE_JOB_TIMEOUT_SECONDS', default: '1800', description: 'longest one run of a job; then it fails with `timeout` (a 100-page scan takes ~10 minutes of OCR on one worker)' },
  { name: 'QUIRE_OCR_PAGE_TIMEOUT_SECONDS', default: '120', description: 'longest OCR of one page; the page is kept as `ocr_failed` and the rest of the job goes on' },
  { name: 'QUIRE_JOB_MAX_ATTEMPTS', default: '3', description: 'runs a job gets (lost workers, transient errors) before it fails' },
  { name: 'QUIRE_PIPELINE_IDLE_SECONDS', default: '60', description: 'a pipeline thread with no document for this long is ended, returning its memory; the next document starts a new one (about a second); 0 keeps idle threads' },
  { name: 'QUIRE_OCR_PAGES_AT_ONCE', default: '0 (half the pipeline threads, at least 1)', description: 'pages a process reads with its OCR engines at once, across its pipeline threads; each holds a few hundred MB while read, so more trades memory for speed on scan-heavy loads' },
  { name: 'QUIRE_PROCESS_MEMORY_MARK_MB', default: String(DEFAULT_PROCESS_MEMORY_MARK_MB), description: 'a pipeline thread whose document ends with the process above this resident memory is ended and started afresh, returning what it grew to (OCR engines included, reloaded by the next scan in about 3 s); higher keeps the engines of a scan-heavy load loaded' },
  { name: 'QUIRE_PDFIUM_MEMORY_MB', default: String(DEFAULT_PDFIUM_MEMORY_MB), description: 'memory the PDF parser of each pipeline thread may grow to; a PDF that needs more (huge images, deeply nested forms) fails with `resource_limit`. Real PDFs peak below 200 MB' },
  { name: 'QUIRE_MAX_RESULT_MB', default: String(DEFAULT_MAX_RESULT_MB), description: 'largest canonical document one job may produce, as JSON; a document that makes more (millions of tiny words) fails with `resource_limit` before anything is stored. Real documents make under 2 MB' },
  { name: 'QUIRE_RECOVERY_INTERVAL_SECONDS', default: '60', description: 'how often workers recover jobs whose lease expired' },
  { name: 'QUIRE_ADMIN_EMAIL', default: 'admin@quire.local', description: 'first platform admin, created on first start' },
  { name: 'QUIRE_ADMIN_PASSWORD', default: '(generated, printed once)', description: 'password of the first platform admin' },
  { name: 'QUIRE_SECRET_KEY', default: '(generated into the data dir)', description: 'encrypts stored credentials (AES-256-GCM)' },
  { name: 'QUIRE_MAX_UPLOAD_BYTES', default: '52428800', description: 'largest accepted upload (50 MiB)' },
  { name: 'QUIRE_ALLOW_PRIVATE_NETWORK', default: '0', description: '1 lets outbound calls reach private/loopback addresses' },
  { name: 'QUIRE_OUTBOUND_ALLOW', default: '(none)', description: 'comma-separated private addresses or CIDR ranges outbound calls may reach (e.g. 10.0.0.5,192.168.10.0/24)' },
  { name: 'QUIRE_LOCAL_ROOT', default: '<data dir>/connections', description: 'directory of the tenants\' folders for `local` connections (<root>/<tenant_id>)' },
  { name: 'QUIRE_EXTRA_CA_CERTS', default: '(none)', description: 'PEM file of extra certificate authorities trusted by webhook deliveries' },
  { name: 'QUIRE_DELIVERY_LEASE_SECONDS', default: '150', description: 'lease of a delivery being sent; a worker that dies mid-send loses it and another sends it again' },
  { name: 'QUIRE_DELIVERY_RETRY_BASE_MS', default: '5000', description: 'first retry delay of a failed delivery; doubles per attempt up to an hour, with jitter' },
  { name: 'QUIRE_SOURCE_LEASE_SECONDS', default: '60', description: 'lease of a source poll on its connection, renewed while it runs; a worker that dies mid-poll loses it and another polls' },
  { name: 'QUIRE_SESSION_IDLE_HOURS', default: '12', description: 'a session expires after this long unused' },
  { name: 'QUIRE_PUBLIC_URL', default: '(the address each request used)', description: 'the address people reach Quire at (e.g. https://quire.example.com): invitation and password-reset links point there' },
  { name: 'QUIRE_CORS_ORIGINS', default: '(none)', description: 'comma-separated browser origins that may call the API across origins (e.g. https://console.example.com), or * for any' },
  { name: 'QUIRE_SESSION_MAX_DAYS', default: '7', description: 'a session expires this long after login, used or not' },
  { name: 'LOG_LEVEL', default: 'info', description: 'pino log level (trace, debug, info, warn, error, fatal, silent)' },
];

export class ConfigError extends Error {}

function integer(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max = Number.MAX_SAFE_INTEGER): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new ConfigError(`${name} must be an integer ${max === Number.MAX_SAFE_INTEGER ? `of at least ${min}` : `from ${min} to ${max}`}, got "${raw}"`);
  }
  return value;
}

function text(env: NodeJS.ProcessEnv, name: string): string | null {
  const raw = env[name];
  return raw === undefined || raw === '' ? null : raw;
}

const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'];

function logLevel(env: NodeJS.ProcessEnv): string {
  const raw = text(env, 'LOG_LEVEL') ?? 'info';
  if (!LOG_LEVELS.includes(raw)) throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got "${raw}"`);
  return raw;
}

/** The server's public address for links in mails and answers: an http(s) origin, without a trailing slash. */
function publicUrl(env: NodeJS.ProcessEnv): string | null {
  const raw = text(env, 'QUIRE_PUBLIC_URL');
  if (raw === null) return null;
  let url: URL | null = null;
  try {
    url = new URL(raw);
  } catch {
    // refused below
  }
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || url.search || url.hash || url.username) {
    throw new ConfigError(`QUIRE_PUBLIC_URL must be the http(s) address people reach Quire at, such as https://quire.example.com, got "${raw}"`);
  }
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
}

/** A PostgreSQL URL. The value is never echoed: it usually holds a password. */
function databaseUrl(env: NodeJS.ProcessEnv): string | null {
  const raw = text(env, 'DATABASE_URL');
  if (raw === null) return null;
  let protocol = '';
  try {
    protocol = new URL(raw).protocol;
  } catch {
    // not a URL: refused below
  }
  if (protocol !== 'postgres:' && protocol !== 'postgresql:') {
    throw new ConfigError('DATABASE_URL must be a PostgreSQL URL such as postgres://user:password@host:5432/quire (the value set is not one); leave it unset for the embedded database');
  }
  return raw;
}

function flag(env: NodeJS.ProcessEnv, name: string): boolean {
  return ['1', 'true', 'yes', 'on'].includes((env[name] ?? '').toLowerCase());
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  return {
    port: integer(env, 'PORT', 8080, 0, 65535),
    host: text(env, 'HOST') ?? '127.0.0.1',
    dataDir: path.resolve(text(env, 'QUIRE_DATA_DIR') ?? './.quire'),
    databaseUrl: databaseUrl(env),
    dbPreparedStatements: env.QUIRE_DB_PREPARED_STATEMENTS ? flag(env, 'QUIRE_DB_PREPARED_STATEMENTS') : true,
    blobUrl: text(env, 'QUIRE_BLOB_URL'),
    redisUrl: text(env, 'REDIS_URL'),
    redisKeyPrefix: text(env, 'QUIRE_REDIS_PREFIX') ?? 'quire:',
    authRateLimitPerIp: integer(env, 'QUIRE_AUTH_RATE_LIMIT_PER_IP', 60, 1),
    loginRateLimitPerAccount: integer(env, 'QUIRE_LOGIN_RATE_LIMIT_PER_ACCOUNT', 20, 1),
    workers: integer(env, 'QUIRE_WORKERS', os.availableParallelism(), 0),
    s3Endpoint: text(env, 'QUIRE_S3_ENDPOINT'),
    s3Region: text(env, 'QUIRE_S3_REGION') ?? text(env, 'AWS_REGION') ?? 'us-east-1',
    s3ForcePathStyle: env.QUIRE_S3_FORCE_PATH_STYLE ? flag(env, 'QUIRE_S3_FORCE_PATH_STYLE') : text(env, 'QUIRE_S3_ENDPOINT') !== null,
    jobLeaseSeconds: integer(env, 'QUIRE_JOB_LEASE_SECONDS', 30, 2),
    jobTimeoutSeconds: integer(env, 'QUIRE_JOB_TIMEOUT_SECONDS', 1800, 1),
    ocrPageTimeoutSeconds: integer(env, 'QUIRE_OCR_PAGE_TIMEOUT_SECONDS', 120, 1),
    jobMaxAttempts: integer(env, 'QUIRE_JOB_MAX_ATTEMPTS', 3, 1),
    pipelineIdleSeconds: integer(env, 'QUIRE_PIPELINE_IDLE_SECONDS', 60, 0),
    ocrPagesAtOnce: integer(env, 'QUIRE_OCR_PAGES_AT_ONCE', 0, 0),
    processMemoryMarkMb: integer(env, 'QUIRE_PROCESS_MEMORY_MARK_MB', DEFAULT_PROCESS_MEMORY_MARK_MB, 100),
    pdfiumMemoryMb: integer(env, 'QUIRE_PDFIUM_MEMORY_MB', DEFAULT_PDFIUM_MEMORY_MB, 64, 2048),
    maxResultMb: integer(env, 'QUIRE_MAX_RESULT_MB', DEFAULT_MAX_RESULT_MB, 1, 1024),
    recoveryIntervalSeconds: integer(env, 'QUIRE_RECOVERY_INTERVAL_SECONDS', 60, 1),
    adminEmail: text(env, 'QUIRE_ADMIN_EMAIL'),
    adminPassword: text(env, 'QUIRE_ADMIN_PASSWORD'),
    secretKey: text(env, 'QUIRE_SECRET_KEY'),
    maxUploadBytes: integer(env, 'QUIRE_MAX_UPLOAD_BYTES', 50 * 1024 * 1024, 1),
    allowPrivateNetwork: flag(env, 'QUIRE_ALLOW_PRIVATE_NETWORK'),
    outboundAllow: (text(env, 'QUIRE_OUTBOUND_ALLOW') ?? '').split(',').map((s) => s.trim()).filter(Boolean),
    logLevel: logLevel(env),
    localRoot: path.resolve(text(env, 'QUIRE_LOCAL_ROOT') ?? path.join(path.resolve(text(env, 'QUIRE_DATA_DIR') ?? './.quire'), 'connections')),
    extraCaCerts: text(env, 'QUIRE_EXTRA_CA_CERTS'),
    deliveryLeaseSeconds: integer(env, 'QUIRE_DELIVERY_LEASE_SECONDS', 150, 2),
    deliveryRetryBaseMs: integer(env, 'QUIRE_DELIVERY_RETRY_BASE_MS', 5000, 0),
    sourceLeaseSeconds: integer(env, 'QUIRE_SOURCE_LEASE_SECONDS', 60, 3),
    sessionIdleHours: integer(env, 'QUIRE_SESSION_IDLE_HOURS', 12, 1),
    sessionMaxDays: integer(env, 'QUIRE_SESSION_MAX_DAYS', 7, 1),
    publicUrl: publicUrl(env),
    corsOrigins: (text(env, 'QUIRE_CORS_ORIGINS') ?? '').split(',').map((s) => s.trim()).filter(Boolean),
  };
}

export function envHelp(): string {
  const width = Math.max(...ENV_VARS.map((v) => v.name.length));
  return ENV_VARS.map((v) => `  ${v.name.padEnd(width)}  ${v.description} [default: ${v.default}]`).join('\n');
}
