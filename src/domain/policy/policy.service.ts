// Tenant policy: reads, changes, and the effective policy every consumer uses.
//
// `effective(tenantId)` is the one function the rest of Quire calls (rate limiter, workers,
// extraction, forge). It is cached per process and invalidated on change: at once in the process
// that made the change, and in every other process through the policy_version counter, which each
// PolicyService polls (POLL_MS). The HTTP layer adds a per-request memo on top (plugins/policy.ts).
import type { Db } from '../../db/database.js';
import { forbidden, notFound, validationError } from '../../lib/errors.js';
import { lockLiveTemplate } from '../documents/references.js';
import type { Principal } from '../identity/principal.js';
import { findTenant } from '../tenants/tenants.repository.js';
import { type EffectivePolicy, PLATFORM_CONTROLLED, type PolicyName, type PolicyValues } from './policy.registry.js';
import {
  bumpPolicyVersion,
  currentPolicyVersion,
  findPolicyLayers,
  deleteTenantValues,
  findPlatformOverrides,
  findTenantValues,
  savePlatformValues,
  saveTenantValues,
} from './policy.repository.js';
import { type Change, type ResolvedPolicy, applyTenantPatch, diffValues, knownValues, platformDefaults, resolvePolicy } from './policy.resolve.js';

/** How often a process checks whether another process changed a policy. */
export const POLL_MS = 1_000;
/** Longest a cached policy is trusted even without a version change (a missed poll, a manual SQL edit). */
export const MAX_AGE_MS = 30_000;
// Bounds memory for platforms with very many tenants; a full cache simply starts over.
const MAX_CACHED_TENANTS = 10_000;

export type Changes = Partial<Record<PolicyName, Change>>;

export interface TenantPolicyRead extends ResolvedPolicy {
  tenant_id: string;
}

export interface PlatformDefaultsRead {
  defaults: EffectivePolicy;
  updated_at: Date | null;
}

interface Entry<T> {
  value: T;
  at: number;
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}

const actorId = (p: Principal) => p.userId ?? p.apiKeyId;

/**
 * A tenant admin's PATCH naming a platform-controlled field (a kill switch, the rate limit, the
 * page cap, forge spending) is refused as a whole: those bound what the platform gives the tenant.
 */
export function assertTenantMayChange(principal: Principal, patch: Record<string, unknown>): void {
  if (principal.role === 'platform_admin') return;
  const named = PLATFORM_CONTROLLED.filter((name) => Object.prototype.hasOwnProperty.call(patch, name));
  if (named.length) {
    throw forbidden('platform_controlled', `Only a platform admin sets ${named.join(', ')} for a tenant; nothing was changed. Ask the platform operator.`);
  }
}

/**
 * The tenant a policy request may act on: a tenant admin only its own (anything else is 404,
 * never revealing whether it exists), a platform admin any existing tenant.
 */
export async function policyTenant(db: Db, principal: Principal, tenantId: string): Promise<string> {
  if (principal.role !== 'platform_admin' && tenantId !== principal.tenantId) throw notFound(`Tenant ${tenantId}`);
  const tenant = await findTenant(db, tenantId);
  if (!tenant) throw notFound(`Tenant ${tenantId}`);
  return tenant.id;
}

export class PolicyService {
  private generation = 0;
  private platform: Entry<EffectivePolicy> | null = null;
  private readonly tenants = new Map<string, Entry<EffectivePolicy>>();
  private seenVersion: number | null = null;
  private timer: NodeJS.Timeout | null = null;
  private polling: Promise<void> | null = null;

  constructor(
    private readonly db: Db,
    private readonly options: { pollMs?: number; maxAgeMs?: number } = {},
  ) {}

  /** Starts watching for changes made by other processes; resolves once the first version is read. */
  start(): Promise<void> {
    if (this.timer) return this.polling ?? Promise.resolve();
    this.timer = setInterval(() => void this.poll(), this.options.pollMs ?? POLL_MS);
    this.timer.unref();
    return this.poll();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.polling;
  }

  /** Checks the version counter once; drops every cached policy when it moved. */
  poll(): Promise<void> {
    this.polling ??= (async () => {
      try {
        const version = await currentPolicyVersion(this.db);
        // The first poll has no baseline: anything cached before it may predate a change made
        // while the first read was in flight, so it is dropped rather than trusted for MAX_AGE_MS.
        if (this.seenVersion === null || version !== this.seenVersion) this.invalidate();
        this.seenVersion = version;
      } catch {
        // Database briefly unreachable: keep serving cached values; MAX_AGE_MS bounds staleness.
      } finally {
        this.polling = null;
      }
    })();
    return this.polling;
  }

  invalidate(): void {
    this.generation++;
    this.platform = null;
    this.tenants.clear();
  }

  /** The effective policy of a tenant: what every consumer reads. Frozen; do not mutate. */
  async effective(tenantId: string): Promise<EffectivePolicy> {
    const hit = this.tenants.get(tenantId);
    if (hit && this.fresh(hit)) return hit.value;
    // A fill that started before an invalidation may carry old values: it is answered, not cached.
    const generation = this.generation;
    const [platform, own] = await Promise.all([this.platformCached(), findTenantValues(this.db, tenantId)]);
    const value = deepFreeze(resolvePolicy(platform, own).effective);
    if (generation === this.generation) {
      if (this.tenants.size >= MAX_CACHED_TENANTS) this.tenants.clear();
      this.tenants.set(tenantId, { value, at: Date.now() });
    }
    return value;
  }

  /**
   * The effective policy read from the database now, bypassing the cache: a job starts under the
   * policy in force, even when a change from another process has not reached this cache yet.
   */
  async current(tenantId: string): Promise<EffectivePolicy> {
    const { platform, tenant } = await findPolicyLayers(this.db, tenantId);
    return deepFreeze(resolvePolicy(platformDefaults(platform), tenant).effective);
  }

  /** Value and source of every field, and the effective view (GET /v1/admin/tenant-policy/{id}). Always fresh. */
  async read(tenantId: string): Promise<TenantPolicyRead> {
    const [{ values }, own] = await Promise.all([findPlatformOverrides(this.db), findTenantValues(this.db, tenantId)]);
    return { tenant_id: tenantId, ...resolvePolicy(platformDefaults(values), own) };
  }

  async platformDefaults(): Promise<PlatformDefaultsRead> {
    const { values, updatedAt } = await findPlatformOverrides(this.db);
    return { defaults: platformDefaults(values), updated_at: updatedAt };
  }

  /** Applies a validated PATCH (present: set, null: inherit again, absent: unchanged). */
  async patchTenant(actor: Principal, tenantId: string, patch: Record<string, unknown>): Promise<{ read: TenantPolicyRead; changes: Changes }> {
    const changes = await this.db.transaction().execute(async (tx) => {
      // A default template is one of the tenant's own live templates, as a job's template_id is;
      // its row is held so that a delete (which refuses the default) cannot commit in between.
      const template = patch.default_template_id;
      if (typeof template === 'string' && !(await lockLiveTemplate(tx, tenantId, template))) throw notFound(`Template ${template}`);
      await bumpPolicyVersion(tx);
      const before = await findTenantValues(tx, tenantId);
      const after = applyTenantPatch(before, patch);
      const diff = diffValues(before, after);
      if (Object.keys(diff).length) await saveTenantValues(tx, tenantId, after, actorId(actor));
      return diff;
    });
    this.invalidate();
    return { read: await this.read(tenantId), changes };
  }

  /**
   * DELETE: the tenant inherits every field again, kill switches included; by a tenant admin, every
   * field but the platform-controlled ones, which keep what a platform admin set.
   */
  async resetTenant(actor: Principal, tenantId: string): Promise<{ read: TenantPolicyRead; changes: Changes }> {
    const changes = await this.db.transaction().execute(async (tx) => {
      await bumpPolicyVersion(tx);
      const before = await findTenantValues(tx, tenantId);
      const kept: PolicyValues = actor.role === 'platform_admin' ? {} : Object.fromEntries(PLATFORM_CONTROLLED.filter((name) => name in before).map((name) => [name, before[name]]));
      await deleteTenantValues(tx, tenantId);
      if (Object.keys(kept).length) await saveTenantValues(tx, tenantId, kept, actorId(actor));
      return diffValues(before, kept);
    });
    this.invalidate();
    return { read: await this.read(tenantId), changes };
  }

  /** PATCH /v1/platform/defaults: every present key is set (null never gets here: 422). */
  async patchPlatform(actor: Principal, patch: Record<string, unknown>): Promise<{ read: PlatformDefaultsRead; changes: Changes }> {
    if (typeof patch.default_template_id === 'string') {
      throw validationError([{ loc: ['body', 'default_template_id'], msg: "Templates belong to tenants: set default_template_id in a tenant's policy (PATCH /v1/admin/tenant-policy/{tenant_id})", type: 'value_error', input: patch.default_template_id }]);
    }
    const set = knownValues(patch);
    const changes = await this.db.transaction().execute(async (tx) => {
      await bumpPolicyVersion(tx);
      const before = platformDefaults((await findPlatformOverrides(tx)).values);
      const diff = diffValues(before, { ...before, ...set } as PolicyValues);
      const changed = Object.fromEntries(Object.keys(diff).map((name) => [name, set[name as PolicyName]]));
      await savePlatformValues(tx, changed, actorId(actor));
      return diff;
    });
    this.invalidate();
    return { read: await this.platformDefaults(), changes };
  }

  private fresh(entry: Entry<unknown>): boolean {
    return Date.now() - entry.at < (this.options.maxAgeMs ?? MAX_AGE_MS);
  }

  private async platformCached(): Promise<EffectivePolicy> {
    if (this.platform && this.fresh(this.platform)) return this.platform.value;
    const generation = this.generation;
    const value = deepFreeze(platformDefaults((await findPlatformOverrides(this.db)).values));
    if (generation === this.generation) this.platform = { value, at: Date.now() };
    return value;
  }
}
