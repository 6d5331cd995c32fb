// Who did something (a review's decider), named for people rather than by id. Only admins may
// read the tenant's users (GET /v1/admin/users/{user_id}; a member is answered 403) and its
// tenant-wide API keys (GET /v1/admin/api-keys), so a member sees "another user" or "an API key",
// with the id on hover for whoever needs to trace it. A platform admin acting in another tenant
// may also read every tenant's users (GET /v1/platform/users): a decision there by someone outside
// that tenant (another platform admin acting in it) is named too.
import { useContext } from 'react';
import { ApiError, api, must } from '../api/client';
import { RoleContext, UserContext, useIsAdmin, useLoad } from './ui';

export interface Named {
  /** What the screen shows: "you (ann@x.test)", "Ann Lee (ann@x.test)", "another user", "the API key “ingest”". */
  text: string;
  /** The id behind it, for the tooltip (none for the person signed in). */
  id: string | null;
}

interface UserRecord {
  id: string;
  email: string;
  display_name?: string | null;
}

/** The tenant's user, or null when it has none by that id (deleted, or someone from outside the tenant). */
async function tenantUser(id: string): Promise<UserRecord | null> {
  try {
    return must(await api.GET('/v1/admin/users/{user_id}', { params: { path: { user_id: id } } }));
  } catch (err) {
    if (err instanceof ApiError && err.status === 404) return null;
    throw err;
  }
}

/**
 * A platform admin from outside the acting tenant, read from the cross-tenant user list. Only
 * platform admins act in a tenant not their own, so the list is asked for them alone; it is
 * short, but paged through all the same.
 */
async function platformAdmin(id: string): Promise<UserRecord | null> {
  let cursor: string | undefined;
  do {
    const page = must(await api.GET('/v1/platform/users', { params: { query: { role: 'platform_admin', limit: 200, ...(cursor ? { cursor } : {}) } } }));
    const found = page.items.find((u) => u.id === id);
    if (found) return found;
    cursor = page.next_cursor ?? undefined;
  } while (cursor);
  return null;
}

/** A tenant-wide key's name, from the tenant's key list (revoked keys included), paged through until found. */
async function keyName(publicId: string): Promise<string | null> {
  let cursor: string | undefined;
  do {
    const page = must(await api.GET('/v1/admin/api-keys', { params: { query: { limit: 200, ...(cursor ? { cursor } : {}) } } }));
    const found = page.items.find((k) => k.public_id === publicId);
    if (found) return found.name;
    cursor = page.next_cursor ?? undefined;
  } while (cursor);
  return null;
}

/** The actor ids the API records: a user (`usr_…`) or, for a decision sent with a tenant-wide API key, the key's public id (`key_…`). */
export function usePerson(id: string | null | undefined): Named | null {
  const me = useContext(UserContext);
  const role = useContext(RoleContext);
  const admin = useIsAdmin();
  const lookUp = !!id && admin && id !== me?.id && (id.startsWith('usr_') || id.startsWith('key_'));
  const found = useLoad(async () => {
    if (!lookUp) return null;
    if (id!.startsWith('key_')) return { key: await keyName(id!) };
    const user = (await tenantUser(id!)) ?? (role === 'platform_admin' ? await platformAdmin(id!) : null);
    return { user };
  }, [id, lookUp, role]);
  if (!id) return null;
  if (me && id === me.id) return { text: `you (${me.email})`, id: null };
  const data = found.data;
  if (id.startsWith('key_')) return { text: data?.key ? `the API key “${data.key}”` : 'an API key', id };
  // A user the lookup cannot name (a member asking, a user since deleted) is still someone.
  const u = data && 'user' in data ? data.user : null;
  if (u) return { text: u.display_name ? `${u.display_name} (${u.email})` : u.email, id };
  return { text: 'another user', id };
}

/** A person's name in running text, with the id behind it on hover. */
export function Person({ named }: { named: Named }) {
  return named.id ? <span className="person" title={named.id}>{named.text}</span> : <>{named.text}</>;
}
