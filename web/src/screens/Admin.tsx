// Administration: users and invitations, API keys, sessions, connections and model endpoints,
// and the audit log.
import { useState } from 'react';
import { api, must } from '../api/client';
import { type Loaded, Message, Page, StatusBadge, When, unavailable, useAction, useLoad } from '../components/ui';

/** A one-time secret or link: shown once, with a copy button, until dismissed. */
function OneTime({ label, value, onDone }: { label: string; value: string; onDone: () => void }) {
  return (
    <div className="one-time" role="status">
      <p><strong>{label}</strong> It is shown only now.</p>
      <code className="secret">{value}</code>
      <button onClick={() => void navigator.clipboard?.writeText(value)}>Copy</button>
      <button onClick={onDone}>Done</button>
    </div>
  );
}

type UserAction = 'suspend' | 'activate' | 'promote' | 'demote' | 'resend-invite' | 'revoke-invite' | 'reset-password';

export function Users() {
  const [q, setQ] = useState('');
  const users = useLoad(async () => must(await api.GET('/v1/admin/users', { params: { query: { limit: 200, ...(q.trim() ? { q: q.trim() } : {}) } } })), [q]);
  const action = useAction();
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<'member' | 'admin'>('member');
  const [link, setLink] = useState<{ label: string; url: string } | null>(null);
  const invite = () =>
    action.run(async () => {
      const res = must(await api.POST('/v1/admin/users', { body: { email, role } }));
      setLink({ label: `Invitation link for ${email}.`, url: res.invitation.url });
      setEmail('');
      await users.reload();
    });
  const act = (id: string, what: UserAction) =>
    action.run(async () => {
      const path = { params: { path: { user_id: id } } };
      const calls = {
        suspend: () => api.POST('/v1/admin/users/{user_id}/suspend', path),
        activate: () => api.POST('/v1/admin/users/{user_id}/activate', path),
        promote: () => api.POST('/v1/admin/users/{user_id}/promote', path),
        demote: () => api.POST('/v1/admin/users/{user_id}/demote', path),
        'resend-invite': () => api.POST('/v1/admin/users/{user_id}/resend-invite', path),
        'revoke-invite': () => api.POST('/v1/admin/users/{user_id}/revoke-invite', path),
        'reset-password': () => api.POST('/v1/admin/users/{user_id}/reset-password', path),
      };
      const answer = must((await calls[what]()) as { data?: unknown; error?: unknown; response: Response }) as { invitation?: { url: string }; reset?: { url: string } };
      if (answer.invitation) setLink({ label: 'New invitation link.', url: answer.invitation.url });
      if (answer.reset) setLink({ label: 'Password reset link.', url: answer.reset.url });
      await users.reload();
    }, 'Done.');
  return (
    <Page title="Users">
      <form className="card row" onSubmit={(e) => { e.preventDefault(); void invite(); }} aria-label="Invite a user">
        <label>Email<input type="email" required value={email} onChange={(e) => setEmail(e.target.value)} /></label>
        <label>Role<select value={role} onChange={(e) => setRole(e.target.value as 'member' | 'admin')}><option>member</option><option>admin</option></select></label>
        <button type="submit" className="primary" disabled={action.busy}>Invite</button>
      </form>
      {link && <OneTime label={link.label} value={link.url} onDone={() => setLink(null)} />}
      <Message error={users.error ?? action.error} notice={action.notice} />
      <div className="card">
        <label>Search<input type="search" value={q} onChange={(e) => setQ(e.target.value)} /></label>
        <table className="list" aria-label="Users">
          <thead><tr><th scope="col">Email</th><th scope="col">Role</th><th scope="col">Status</th><th scope="col">Last sign-in</th><th scope="col">Actions</th></tr></thead>
          <tbody>
            {(users.data?.items ?? []).map((u) => (
              <tr key={u.id}>
                <td>{u.email}</td><td>{u.role}</td><td><StatusBadge status={u.status} /></td><td><When at={u.last_login_at} /></td>
                <td className="buttons">
                  {u.status === 'invited' ? (
                    <><button aria-label={`Resend invite ${u.email}`} onClick={() => void act(u.id, 'resend-invite')}>Resend invite</button><button aria-label={`Revoke invite ${u.email}`} onClick={() => void act(u.id, 'revoke-invite')}>Revoke invite</button></>
                  ) : (
                    <>
                      {u.status === 'active' ? <button aria-label={`Suspend ${u.email}`} onClick={() => void act(u.id, 'suspend')}>Suspend</button> : <button aria-label={`Activate ${u.email}`} onClick={() => void act(u.id, 'activate')}>Activate</button>}
                      {u.role === 'member' && <button aria-label={`Make admin ${u.email}`} onClick={() => void act(u.id, 'promote')}>Make admin</button>}
                      {u.role === 'admin' && <button aria-label={`Make member ${u.email}`} onClick={() => void act(u.id, 'demote')}>Make member</button>}
                      <button aria-label={`Reset password ${u.email}`} onClick={() => void act(u.id, 'reset-password')}>Reset password</button>
                    </>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </Page>
  );
}

export function ApiKeys() {
  const keys = useLoad(async () => must(await api.GET('/v1/admin/api-keys', { params: { query: { limit: 200 } } })), []);
  const action = useAction();
  const [name, setName] = useState('');
  const [role, setRole] = useState<'member' | 'admin'>('member');
  const [secret, setSecret] = useState<string | null>(null);
  const create = () =>
    action.run(async () => {
      const res = must(await api.POST('/v1/admin/api-keys', { body: { name, role } })) as { secret: string };
      setSecret(res.secret);
      setName('');
      await keys.reload();
    });
  const rotate = (id: string) =>
    action.run(async () => {
      const res = must(await api.POST('/v1/admin/api-keys/{public_id}/rotate', { params: { path: { public_id: id } } })) as { secret: string };
      setSecret(res.secret);
      await keys.reload();
    });
  const revoke = (id: string, name: string) =>
    window.confirm(`Revoke the API key ${name}? Anything using it is refused from then on.`) &&
    action.run(async () => {
      must(await api.POST('/v1/admin/api-keys/{public_id}/revoke', { params: { path: { public_id: id } } }));
      await keys.reload();
    }, 'Revoked.');
  return (
    <Page title="API keys">
      <form className="card row" onSubmit={(e) => { e.preventDefault(); void create(); }} aria-label="New API key">
        <label>Name<input required value={name} onChange={(e) => setName(e.target.value)} /></label>
        <label>Role<select value={role} onChange={(e) => setRole(e.target.value as 'member' | 'admin')}><option>member</option><option>admin</option></select></label>
        <button type="submit" className="primary" disabled={action.busy}>Create key</button>
      </form>
      {secret && <OneTime label="The key's secret." value={secret} onDone={() => setSecret(null)} />}
      <Message error={keys.error ?? action.error} notice={action.notice} />
      <div className="card">
        <table className="list" aria-label="API keys">
          <thead><tr><th scope="col">Name</th><th scope="col">Prefix</th><th scope="col">Role</th><th scope="col">Last used</th><th scope="col">Revoked</th><th scope="col">Actions</th></tr></thead>
          <tbody>
            {((keys.data?.items ?? []) as { public_id: string; name: string; prefix: string; role: string; last_used_at: string | null; revoked_at: string | null }[]).map((k) => (
              <tr key={k.public_id}>
                <td>{k.name}</td><td><code>{k.prefix}</code></td><td>{k.role}</td><td><When at={k.last_used_at} /></td><td><When at={k.revoked_at} /></td>
                <td className="buttons">{!k.revoked_at && <><button aria-label={`Rotate ${k.name}`} onClick={() => void rotate(k.public_id)}>Rotate</button><button className="danger" aria-label={`Revoke ${k.name}`} onClick={() => void revoke(k.public_id, k.name)}>Revoke</button></>}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </Page>
  );
}

export function Sessions() {
  const sessions = useLoad(async () => must(await api.GET('/v1/auth/sessions', { params: { query: { limit: 100 } } })), []);
  const action = useAction();
  return (
    <Page title="Your sessions">
      <Message error={sessions.error ?? action.error} notice={action.notice} />
      <div className="card">
        <table className="list" aria-label="Sessions">
          <thead><tr><th scope="col">Started</th><th scope="col">Last seen</th><th scope="col">From</th><th scope="col">Expires</th><th scope="col"><span className="visually-hidden">Revoke</span></th></tr></thead>
          <tbody>
            {(sessions.data?.items ?? []).map((s) => (
              <tr key={s.session_id}>
                <td><When at={s.created_at} />{s.current && <strong> (this one)</strong>}</td><td><When at={s.last_seen_at} /></td><td>{s.ip ?? '—'} <small className="muted">{s.user_agent}</small></td><td><When at={s.expires_at} /></td>
                <td>{!s.revoked_at && !s.current && <button aria-label={`Revoke the session started ${new Date(s.created_at).toLocaleString()}`} onClick={() => void action.run(async () => { must(await api.POST('/v1/auth/sessions/{session_id}/revoke', { params: { path: { session_id: s.session_id } } })); await sessions.reload(); }, 'Session revoked.')}>Revoke</button>}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </Page>
  );
}

/** Connections and model endpoints; when this installation does not offer them the page says so. */
export function Integrations() {
  const connections = useLoad(async () => must(await api.GET('/v1/admin/connections')) as unknown as { items?: Record<string, unknown>[] }, []);
  const endpoints = useLoad(async () => must(await api.GET('/v1/admin/forge-endpoints')) as unknown as { items?: Record<string, unknown>[] }, []);
  return (
    <Page title="Connections and endpoints">
      <Connections loaded={connections} />
      <ModelEndpoints loaded={endpoints} />
    </Page>
  );
}

type Listed = Loaded<{ items?: Record<string, unknown>[] }>;

function Unoffered({ error }: { error: string }) {
  return <p className={unavailable(error) ? 'muted' : 'message error'} role={unavailable(error) ? undefined : 'alert'}>{error}</p>;
}

function parseJson(label: string, text: string): Record<string, unknown> {
  try {
    const value = JSON.parse(text || '{}');
    if (value && typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {
    /* reported below */
  }
  throw new Error(`${label} must be a JSON object.`);
}

function Connections({ loaded }: { loaded: Listed }) {
  const action = useAction();
  const [name, setName] = useState('');
  const [protocol, setProtocol] = useState<'s3' | 'webhook' | 'local' | 'sftp'>('s3');
  const [direction, setDirection] = useState<'source' | 'destination' | 'both'>('destination');
  const [config, setConfig] = useState('{}');
  const [credentials, setCredentials] = useState('{}');
  const create = () =>
    action.run(async () => {
      must(await api.POST('/v1/admin/connections', { body: { name, protocol, direction, config: parseJson('Config', config), credentials: parseJson('Credentials', credentials) } }));
      setName('');
      setCredentials('{}');
      await loaded.reload();
    }, 'Connection saved; its credentials are stored encrypted and never shown again.');
  const [tested, setTested] = useState<string | null>(null);
  const act = (id: string, what: 'test' | 'delete', name: string) => {
    if (what === 'delete' && !window.confirm(`Delete the connection ${name}?`)) return;
    return action.run(async () => {
      const path = { params: { path: { connection_id: id } } };
      setTested(null);
      if (what === 'test') setTested(JSON.stringify(must(await api.POST('/v1/admin/connections/{connection_id}/test', path)), null, 2));
      else {
        must(await api.DELETE('/v1/admin/connections/{connection_id}', path));
        await loaded.reload();
      }
    }, what === 'test' ? undefined : 'Deleted.');
  };
  return (
    <div className="card">
      <h2>Connections</h2>
      {loaded.error ? (
        <Unoffered error={loaded.error} />
      ) : (
        <>
          <form className="row" onSubmit={(e) => { e.preventDefault(); void create(); }} aria-label="New connection">
            <label>Name<input required value={name} onChange={(e) => setName(e.target.value)} /></label>
            <label>Protocol<select value={protocol} onChange={(e) => setProtocol(e.target.value as typeof protocol)}>{['s3', 'webhook', 'local', 'sftp'].map((p) => <option key={p}>{p}</option>)}</select></label>
            <label>Direction<select value={direction} onChange={(e) => setDirection(e.target.value as typeof direction)}><option>destination</option><option>source</option><option>both</option></select></label>
            <label className="grow">Config (JSON)<input value={config} onChange={(e) => setConfig(e.target.value)} /></label>
            <label className="grow">Credentials (JSON)<input type="password" value={credentials} onChange={(e) => setCredentials(e.target.value)} /></label>
            <button type="submit" className="primary" disabled={action.busy}>Add connection</button>
          </form>
          <Message error={action.error} notice={action.notice} />
          {tested && <pre className="diff" aria-label="Connection test result">{tested}</pre>}
          <table className="list" aria-label="Connections">
            <thead><tr><th scope="col">Name</th><th scope="col">Protocol</th><th scope="col">Direction</th><th scope="col">Actions</th></tr></thead>
            <tbody>
              {(loaded.data?.items ?? []).map((c) => (
                <tr key={String(c.id)}>
                  <td>{String(c.name)}</td><td>{String(c.protocol)}</td><td>{String(c.direction)}</td>
                  <td className="buttons"><button aria-label={`Test ${String(c.name)}`} onClick={() => void act(String(c.id), 'test', String(c.name))}>Test</button><button className="danger" aria-label={`Delete ${String(c.name)}`} onClick={() => void act(String(c.id), 'delete', String(c.name))}>Delete</button></td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
    </div>
  );
}

const FIELD_LABELS: Record<string, string> = { base_url: 'Base URL', aws_region: 'AWS region', gcp_project: 'GCP project', gcp_region: 'GCP region' };
const label = (key: string) => FIELD_LABELS[key] ?? key.replace(/_/g, ' ').replace(/^./, (c) => c.toUpperCase()).replace(/\b(api|json|id)\b/gi, (w) => w.toUpperCase());

function ModelEndpoints({ loaded }: { loaded: Listed }) {
  const action = useAction();
  // What each backend needs (fields and credential keys) comes from the API, so the form asks for exactly that.
  const backends = useLoad(async () => must(await api.GET('/v1/admin/forge-endpoints/backends/list')).items, []);
  const [name, setName] = useState('');
  const [backend, setBackend] = useState('custom_url');
  const [model, setModel] = useState('');
  const [fields, setFields] = useState<Record<string, string>>({});
  const [secrets, setSecrets] = useState<Record<string, string>>({});
  const spec = backends.data?.find((b) => b.backend === backend);
  const extraFields = spec ? [...spec.required_fields, ...spec.optional_fields].filter((f) => f !== 'model') : ['base_url'];
  const credentialKeys = spec ? [...spec.required_credentials, ...spec.optional_credentials] : [];
  const create = () =>
    action.run(async () => {
      // Only what was filled in: an empty optional key (custom_url's api_key) is absent, not "".
      const given = (values: Record<string, string>, keys: string[]) => Object.fromEntries(keys.map((k) => [k, values[k]?.trim() ?? '']).filter(([, v]) => v));
      const body = { name, backend, model, ...given(fields, extraFields), credentials: given(secrets, credentialKeys) };
      must(await api.POST('/v1/admin/forge-endpoints', { body: body as never }));
      setName('');
      setSecrets({});
      await loaded.reload();
    }, 'Endpoint saved; its credentials are stored encrypted and never shown again.');
  const act = (id: string, what: 'default' | 'delete', name: string) => {
    if (what === 'delete' && !window.confirm(`Delete the model endpoint ${name}?`)) return;
    return action.run(async () => {
      const path = { params: { path: { endpoint_id: id } } };
      must(what === 'default' ? await api.POST('/v1/admin/forge-endpoints/{endpoint_id}/set-default', path) : await api.DELETE('/v1/admin/forge-endpoints/{endpoint_id}', path));
      await loaded.reload();
    }, what === 'default' ? 'Now the default for this tenant.' : 'Deleted.');
  };
  return (
    <div className="card">
      <h2>Model endpoints</h2>
      {loaded.error ? (
        <Unoffered error={loaded.error} />
      ) : (
        <>
          <form className="row" onSubmit={(e) => { e.preventDefault(); void create(); }} aria-label="New model endpoint">
            <label>Name<input required value={name} onChange={(e) => setName(e.target.value)} /></label>
            <label>Backend<select value={backend} onChange={(e) => { setBackend(e.target.value); setSecrets({}); }}>{(backends.data?.map((b) => b.backend) ?? ['custom_url', 'anthropic', 'bedrock', 'vertex']).map((b) => <option key={b}>{b}</option>)}</select></label>
            <label>Model<input required value={model} onChange={(e) => setModel(e.target.value)} /></label>
            {extraFields.map((f) => (
              <label key={f} className={f === 'base_url' ? 'grow' : undefined}>
                {label(f)}{spec && !spec.required_fields.includes(f) ? ' (optional)' : ''}
                <input type={f === 'base_url' ? 'url' : 'text'} required={!!spec?.required_fields.includes(f)} value={fields[f] ?? ''} onChange={(e) => setFields({ ...fields, [f]: e.target.value })} placeholder={f === 'base_url' ? 'https://…/v1' : undefined} />
              </label>
            ))}
            {credentialKeys.map((k) => {
              const optional = !spec!.required_credentials.includes(k);
              return (
                <label key={k} className={k === 'service_account_json' ? 'grow' : undefined}>
                  {label(k)}{optional ? ' (optional)' : ''}
                  {k === 'service_account_json' ? (
                    <textarea required={!optional} rows={3} autoComplete="off" spellCheck={false} value={secrets[k] ?? ''} onChange={(e) => setSecrets({ ...secrets, [k]: e.target.value })} placeholder='{"type": "service_account", …}' />
                  ) : (
                    <input type="password" autoComplete="off" required={!optional} value={secrets[k] ?? ''} onChange={(e) => setSecrets({ ...secrets, [k]: e.target.value })} />
                  )}
                </label>
              );
            })}
            {spec && <p className="muted hint">{spec.description}</p>}
            <button type="submit" className="primary" disabled={action.busy}>Add endpoint</button>
          </form>
          <Message error={action.error} notice={action.notice} />
          <table className="list" aria-label="Model endpoints">
            <thead><tr><th scope="col">Name</th><th scope="col">Backend</th><th scope="col">Model</th><th scope="col">Default</th><th scope="col">Actions</th></tr></thead>
            <tbody>
              {(loaded.data?.items ?? []).map((m) => (
                <tr key={String(m.id)}>
                  <td>{String(m.name)}</td><td>{String(m.backend)}</td><td>{String(m.model)}</td><td>{m.is_default_for_tenant ? 'yes' : ''}</td>
                  <td className="buttons">{!m.is_default_for_tenant && <button aria-label={`Make ${String(m.name)} the default`} onClick={() => void act(String(m.id), 'default', String(m.name))}>Make default</button>}<button className="danger" aria-label={`Delete ${String(m.name)}`} onClick={() => void act(String(m.id), 'delete', String(m.name))}>Delete</button></td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
    </div>
  );
}

export function Audit() {
  const [filters, setFilters] = useState({ action: '', resource_type: '', resource_id: '', created_after: '' });
  const [cursor, setCursor] = useState<string | undefined>();
  const query = Object.fromEntries(Object.entries(filters).filter(([, v]) => v.trim()).map(([k, v]) => [k, k === 'created_after' ? new Date(v).toISOString() : v.trim()]));
  const log = useLoad(async () => must(await api.GET('/v1/admin/audit', { params: { query: { limit: 50, ...query, ...(cursor ? { cursor } : {}) } } })), [JSON.stringify(query), cursor]);
  const set = (k: keyof typeof filters, v: string) => { setCursor(undefined); setFilters({ ...filters, [k]: v }); };
  return (
    <Page title="Audit log">
      <form className="card row filters" onSubmit={(e) => e.preventDefault()} aria-label="Audit filters">
        <label>Action<input value={filters.action} onChange={(e) => set('action', e.target.value)} placeholder="e.g. templates.create" /></label>
        <label>Resource type<input value={filters.resource_type} onChange={(e) => set('resource_type', e.target.value)} /></label>
        <label>Resource id<input value={filters.resource_id} onChange={(e) => set('resource_id', e.target.value)} /></label>
        <label>Since<input type="datetime-local" value={filters.created_after} onChange={(e) => set('created_after', e.target.value)} /></label>
      </form>
      <Message error={log.error} />
      <div className="card">
        <table className="list" aria-label="Audit entries">
          <thead><tr><th scope="col">When</th><th scope="col">Who</th><th scope="col">Action</th><th scope="col">Resource</th><th scope="col">Details</th></tr></thead>
          <tbody>
            {(log.data?.items ?? []).map((a) => (
              <tr key={a.id}><td><When at={a.created_at} /></td><td>{a.actor.email ?? a.actor.api_key_id ?? '—'}</td><td><code>{a.action}</code></td><td>{a.resource_type} {a.resource_id}</td><td><code className="details">{JSON.stringify(a.details)}</code></td></tr>
            ))}
          </tbody>
        </table>
        {log.data?.next_cursor && <button onClick={() => setCursor(log.data!.next_cursor!)}>Older entries</button>}
      </div>
    </Page>
  );
}
