// Who did something (a review's decider), named for people rather than by id. Only admins may
// read the tenant's users (GET /v1/admin/users/{user_id}; a member is answered 403), so a member
// sees "another user", with the id on hover for whoever needs to trace it.
import { useContext } from 'react';
import { api, must } from '../api/client';
import { UserContext, useIsAdmin, useLoad } from './ui';

export interface Named {
  /** What the screen shows: "you (ann@x.test)", "Ann Lee (ann@x.test)", "another user", "an API key". */
  text: string;
  /** The id behind it, for the tooltip (none for the person signed in). */
  id: string | null;
}

/** The actor ids the API records: a user (`usr_…`) or, for a decision sent with an API key, the key's public id (`key_…`). */
export function usePerson(id: string | null | undefined): Named | null {
  const me = useContext(UserContext);
  const admin = useIsAdmin();
  const lookUp = !!id && admin && id.startsWith('usr_') && id !== me?.id;
  const user = useLoad(async () => (lookUp ? must(await api.GET('/v1/admin/users/{user_id}', { params: { path: { user_id: id! } } })) : null), [id, lookUp]);
  if (!id) return null;
  if (me && id === me.id) return { text: `you (${me.email})`, id: null };
  if (id.startsWith('key_')) return { text: 'an API key', id };
  // A user the lookup cannot name (a member asking, a user since deleted) is still someone.
  const u = user.data;
  if (u) return { text: u.display_name ? `${u.display_name} (${u.email})` : u.email, id };
  return { text: 'another user', id };
}

/** A person's name in running text, with the id behind it on hover. */
export function Person({ named }: { named: Named }) {
  return named.id ? <span className="person" title={named.id}>{named.text}</span> : <>{named.text}</>;
}
