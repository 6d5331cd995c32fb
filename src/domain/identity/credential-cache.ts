// Resolved credentials, kept a few seconds so a burst of requests with one token asks the
// database once instead of three times per request. Revocation still takes effect at once:
// - every change that can revoke a credential (sessions, api_keys, users, tenants; migration
//   0011's triggers) sends NOTIFY quire_auth, and each process drops its whole cache on it;
// - a request of this process that may have changed credentials drops the cache before its
//   response leaves (the NOTIFY would arrive a moment later);
// - while the LISTEN connection is down nothing is cached, since a change could go unseen.
import { createHash } from 'node:crypto';
import type pg from 'pg';
import type { Logger } from 'pino';
import { PgListener } from '../../db/pg-listener.js';
import type { Principal } from './principal.js';

export const AUTH_CHANNEL = 'quire_auth';
const TTL_MS = 5_000;
const MAX_ENTRIES = 10_000;

interface Entry {
  principal: Principal;
  until: number;
}

export class CredentialCache {
  private readonly entries = new Map<string, Entry>();
  private listening = false;
  /** Bumped by every clear: a lookup that started before a change must not store what it read. */
  private gen = 0;

  constructor(
    private readonly ttlMs = TTL_MS,
    private readonly maxEntries = MAX_ENTRIES,
  ) {}

  /** Only a digest of the token is kept in memory. */
  static key(token: string, requestedTenantId: string | null): string {
    return createHash('sha256').update(token).update('\0').update(requestedTenantId ?? '').digest('base64');
  }

  get generation(): number {
    return this.gen;
  }

  get active(): boolean {
    return this.listening;
  }

  get(key: string, now = Date.now()): Principal | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.until <= now) {
      this.entries.delete(key);
      return undefined;
    }
    return entry.principal;
  }

  /**
   * `validUntil`: when the credential lapses by itself (expiry, idle timeout). `readAt`: the
   * generation when the lookup began; a clear since then means the read may be stale.
   */
  set(key: string, principal: Principal, validUntil: number, readAt: number, now = Date.now()): void {
    if (!this.listening || readAt !== this.gen) return;
    if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(key, { principal, until: Math.min(validUntil, now + this.ttlMs) });
  }

  clear(): void {
    this.gen++;
    this.entries.clear();
  }

  /** Caching is on only while changes are being heard. */
  setListening(on: boolean): void {
    this.listening = on;
    this.clear();
  }
}

/** Holds one pool client LISTENing on quire_auth: a notification clears the cache; caching is on only while it listens. */
export function authChangeListener(pool: pg.Pool, cache: CredentialCache, log: Pick<Logger, 'warn'>): PgListener {
  return new PgListener(
    async () => {
      const client = await pool.connect();
      return {
        client,
        close: async (err) => {
          if (!err) await client.query(`UNLISTEN ${AUTH_CHANNEL}`).catch(() => undefined);
          client.release(err);
        },
      };
    },
    {
      name: 'credential change listener (credentials are not cached while it is down)',
      channels: [AUTH_CHANNEL],
      onNotification: () => cache.clear(),
      onListening: () => cache.setListening(true),
      onLost: () => cache.setListening(false),
    },
    log,
  );
}
