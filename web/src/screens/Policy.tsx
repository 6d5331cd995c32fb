// Tenant policy: every setting with its effective value, where it comes from, the platform
// default, and a reset that returns an inherited setting to the platform's value.
import { useState } from 'react';
import { api, must } from '../api/client';
import { Message, Page, useAction, useLoad } from '../components/ui';

type Spec = { name: string; type: string; description: string; constraint: string; enum: string[] | null; inheritable: boolean; kill_switch: boolean; platform_controlled: boolean };

/** What the editor could not read; saving it is refused with this message instead of sending anything. */
class InvalidValue {
  constructor(readonly message: string) {}
}

/**
 * The value typed for a setting. Never null: null in a PATCH means "inherit the platform value",
 * which only the Reset button asks for, so an empty box or a typo ("4O") is refused, not sent.
 */
function parseSetting(spec: Spec, text: string): unknown {
  if (spec.type === 'boolean') return text === 'true';
  if (text.trim() === '') return new InvalidValue('enter a value, or use Reset to inherit the platform value.');
  if (spec.type === 'integer' || spec.type === 'number') {
    const n = Number(text.trim());
    if (!Number.isFinite(n)) return new InvalidValue(`"${text}" is not a number.`);
    if (spec.type === 'integer' && !Number.isInteger(n)) return new InvalidValue(`"${text}" is not a whole number.`);
    return n;
  }
  if (spec.type === 'object') {
    try {
      return JSON.parse(text);
    } catch {
      return new InvalidValue('the value is not valid JSON.');
    }
  }
  return text;
}

function ValueEditor({ spec, value, onSave, busy }: { spec: Spec; value: unknown; onSave: (v: unknown) => void; busy: boolean }) {
  const [text, setText] = useState(typeof value === 'object' && value !== null ? JSON.stringify(value) : value === null || value === undefined ? '' : String(value));
  const id = `policy-${spec.name}`;
  return (
    <form className="inline" onSubmit={(e) => { e.preventDefault(); onSave(parseSetting(spec, text)); }}>
      <label className="visually-hidden" htmlFor={id}>{spec.name}</label>
      {spec.type === 'boolean' ? (
        <select id={id} value={text} onChange={(e) => setText(e.target.value)}><option>true</option><option>false</option></select>
      ) : spec.enum ? (
        <select id={id} value={text} onChange={(e) => setText(e.target.value)}>{spec.enum.map((v) => <option key={v}>{v}</option>)}</select>
      ) : (
        <input id={id} value={text} onChange={(e) => setText(e.target.value)} inputMode={spec.type === 'integer' || spec.type === 'number' ? 'decimal' : undefined} />
      )}
      <button type="submit" disabled={busy} aria-label={`Save ${spec.name}`}>Save</button>
    </form>
  );
}

/**
 * A tenant admin sees the platform-controlled settings (kill switches, rate limit, page cap, forge
 * spending) read-only: only the platform operator sets them (docs/policy.md).
 */
export function Policy({ tenantId, isPlatformAdmin }: { tenantId: string; isPlatformAdmin: boolean }) {
  const spec = useLoad(async () => must(await api.GET('/v1/admin/tenant-policy/registry-spec')).fields as Spec[], []);
  const policy = useLoad(async () => must(await api.GET('/v1/admin/tenant-policy/{tenant_id}', { params: { path: { tenant_id: tenantId } } })), [tenantId]);
  const defaults = useLoad(async () => must(await api.GET('/v1/admin/tenant-policy/defaults-view')).defaults as Record<string, unknown>, []);
  const action = useAction();
  const [filter, setFilter] = useState('');
  /** The setting the last save or reset was for: its outcome is shown in its own row, beside its Save button. */
  const [last, setLast] = useState<string | null>(null);
  const fields = (policy.data?.fields ?? {}) as Record<string, { value: unknown; source: string }>;

  const patch = (name: string, value: unknown, done: string) => {
    setLast(name);
    return action.run(async () => {
      if (value instanceof InvalidValue) throw new Error(`${name}: ${value.message}`);
      must(await api.PATCH('/v1/admin/tenant-policy/{tenant_id}', { params: { path: { tenant_id: tenantId } }, body: { [name]: value } as never }));
      await policy.reload();
    }, done);
  };

  const resetAll = () => {
    setLast(null);
    return action.run(async () => {
      must(await api.DELETE('/v1/admin/tenant-policy/{tenant_id}', { params: { path: { tenant_id: tenantId } } }));
      await policy.reload();
    }, isPlatformAdmin ? 'Every inheritable setting now follows the platform defaults.' : 'Every setting of this tenant now follows the platform defaults, except those the platform operator sets.');
  };

  const wanted = filter.trim().toLowerCase();
  const shown = (spec.data ?? []).filter((s) => s.name.toLowerCase().includes(wanted) || s.description.toLowerCase().includes(wanted));
  return (
    <Page title="Tenant policy" actions={<button onClick={() => void resetAll()} disabled={action.busy}>Reset all to inherit</button>}>
      <Message error={spec.error ?? policy.error ?? defaults.error ?? (last ? null : action.error)} notice={last ? null : action.notice} />
      <div className="card">
        <label>Filter settings<input type="search" value={filter} onChange={(e) => setFilter(e.target.value)} /></label>
        <table className="list policy" aria-label="Policy">
          <thead><tr><th scope="col">Setting</th><th scope="col">Value</th><th scope="col">Source</th><th scope="col">Platform default</th><th scope="col"><span className="visually-hidden">Reset</span></th></tr></thead>
          <tbody>
            {shown.map((s) => {
              const f = fields[s.name];
              return (
                <tr key={`${s.name}-${JSON.stringify(f?.value)}`} data-setting={s.name}>
                  <th scope="row"><code>{s.name}</code><small className="muted block">{s.description}{s.constraint ? ` (${s.constraint})` : ''}</small></th>
                  <td>
                    {f && (isPlatformAdmin || !s.platform_controlled) && <ValueEditor spec={s} value={f.value} busy={action.busy} onSave={(v) => void patch(s.name, v, `${s.name} saved.`)} />}
                    {f && !isPlatformAdmin && s.platform_controlled && (
                      <span className="platform-controlled"><code>{JSON.stringify(f.value)}</code> <small className="muted">set by the platform operator</small></span>
                    )}
                    {last === s.name && <Message error={action.error} notice={action.notice} />}
                  </td>
                  <td className={`source source-${f?.source}`}>{f?.source === 'tenant' ? 'this tenant' : 'platform'}</td>
                  <td><code>{JSON.stringify(defaults.data?.[s.name] ?? null)}</code></td>
                  <td>{s.inheritable && f?.source === 'tenant' && (isPlatformAdmin || !s.platform_controlled) && <button onClick={() => void patch(s.name, null, `${s.name} inherits the platform default again.`)} disabled={action.busy} aria-label={`Reset ${s.name} to inherit`}>Reset</button>}</td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
    </Page>
  );
}
