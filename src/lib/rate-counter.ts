// Fixed-window request counters behind one interface: in-process by default, shared through Redis
// when REDIS_URL is set (so every API process counts against the same limit).
//
// Windows are aligned to the clock (floor(now / window)), so all processes agree on when a window
// ends without asking Redis, and the RateLimit-Reset header is exact. Redis is optional in the
// strong sense: when it is configured but unreachable, counting falls back to this process
// (limits then hold per process) and switches back by itself when Redis returns.
import { createHash } from 'node:crypto';
import { Redis } from 'ioredis';

export interface WindowCount {
  /** Requests counted in the current window, this one included for hit(). */
  count: number;
  /** Epoch milliseconds at which the window ends and the count starts over. */
  resetAt: number;
}

export interface RateCounter {
  readonly kind: 'memory' | 'redis';
  /** Counts one request under `key` and answers the window's count. */
  hit(key: string, windowMs: number): Promise<WindowCount>;
  /** The window's count without counting. */
  peek(key: string, windowMs: number): Promise<WindowCount>;
  close(): Promise<void>;
}

export interface Warn {
  (details: Record<string, unknown>, message: string): void;
}

export function currentWindow(now: number, windowMs: number): { index: number; resetAt: number } {
  const index = Math.floor(now / windowMs);
  return { index, resetAt: (index + 1) * windowMs };
}

/** Keys may carry personal data (an email); only a digest of them is stored. */
export function digest(value: string): string {
  return createHash('sha256').update(value).digest('hex').slice(0, 32);
}

export class MemoryRateCounter implements RateCounter {
  readonly kind = 'memory' as const;
  private readonly counts = new Map<string, { index: number; count: number }>();
  private sweptIndex = -1;

  constructor(private readonly now: () => number = Date.now) {}

  async hit(key: string, windowMs: number): Promise<WindowCount> {
    return this.count(key, windowMs, 1);
  }

  async peek(key: string, windowMs: number): Promise<WindowCount> {
    return this.count(key, windowMs, 0);
  }

  async close(): Promise<void> {
    this.counts.clear();
  }

  private count(key: string, windowMs: number, add: number): WindowCount {
    const { index, resetAt } = currentWindow(this.now(), windowMs);
    this.sweep(index);
    const mapKey = `${windowMs}:${key}`;
    const entry = this.counts.get(mapKey);
    const count = (entry && entry.index === index ? entry.count : 0) + add;
    if (add) this.counts.set(mapKey, { index, count });
    return { count, resetAt };
  }

  /** Forgets every finished window, once per new window, so the map never grows without bound. */
  private sweep(index: number): void {
    if (index === this.sweptIndex) return;
    this.sweptIndex = index;
    for (const [key, entry] of this.counts) if (entry.index < index) this.counts.delete(key);
  }
}

export interface RedisCounterOptions {
  url: string;
  prefix: string;
  warn: Warn;
  /** How long startup waits for the first connection before counting in-process meanwhile. */
  connectTimeoutMs?: number;
}

export class RedisRateCounter implements RateCounter {
  readonly kind = 'redis' as const;
  private readonly redis: Redis;
  private readonly fallback = new MemoryRateCounter();
  private degraded = false;

  private constructor(private readonly options: RedisCounterOptions) {
    this.redis = new Redis(options.url, {
      lazyConnect: true,
      // Never queue a rate-limit check behind a reconnect: answer from the fallback instead.
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      // A rate limit must not become the slowest part of a request.
      commandTimeout: 500,
      connectTimeout: options.connectTimeoutMs ?? 2_000,
      retryStrategy: (attempt) => Math.min(attempt * 250, 5_000),
    });
    this.redis.on('error', (err: Error) => this.markDegraded(err));
    this.redis.on('ready', () => {
      if (this.degraded) this.options.warn({ url: redactUrl(this.options.url) }, 'redis reachable again: rate-limit counters are shared again');
      this.degraded = false;
    });
  }

  /** Connects (waiting briefly); an unreachable Redis is logged, not fatal. */
  static async connect(options: RedisCounterOptions): Promise<RedisRateCounter> {
    const counter = new RedisRateCounter(options);
    await counter.redis.connect().catch((err: Error) => counter.markDegraded(err));
    return counter;
  }

  async hit(key: string, windowMs: number): Promise<WindowCount> {
    const { index, resetAt } = currentWindow(Date.now(), windowMs);
    const redisKey = this.key(key, index);
    try {
      // The key names its window, so the expiry only cleans up; one second of slack covers clock skew.
      const results = await this.redis.multi().incr(redisKey).pexpire(redisKey, windowMs + 1_000).exec();
      const [error, count] = results?.[0] ?? [new Error('empty MULTI reply'), null];
      if (error) throw error;
      return { count: Number(count), resetAt };
    } catch (err) {
      this.markDegraded(err as Error);
      return this.fallback.hit(key, windowMs);
    }
  }

  async peek(key: string, windowMs: number): Promise<WindowCount> {
    const { index, resetAt } = currentWindow(Date.now(), windowMs);
    try {
      const value = await this.redis.get(this.key(key, index));
      return { count: Number(value ?? 0), resetAt };
    } catch (err) {
      this.markDegraded(err as Error);
      return this.fallback.peek(key, windowMs);
    }
  }

  async close(): Promise<void> {
    this.redis.disconnect();
    await this.fallback.close();
  }

  private key(key: string, index: number): string {
    return `${this.options.prefix}rl:${key}:${index}`;
  }

  private markDegraded(err: Error): void {
    if (this.degraded) return;
    this.degraded = true;
    this.options.warn({ url: redactUrl(this.options.url), err: err.message }, 'redis unreachable: counting rate limits in this process until it returns');
  }
}

function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return 'redis://(unparseable)';
  }
}

export async function createRateCounter(config: { redisUrl: string | null; redisKeyPrefix: string }, warn: Warn): Promise<RateCounter> {
  if (!config.redisUrl) return new MemoryRateCounter();
  return RedisRateCounter.connect({ url: config.redisUrl, prefix: config.redisKeyPrefix, warn });
}
