// Tenant policy: every setting with its effective value, where it comes from, the platform
// default, and a reset that returns an inherited setting to the platform's value.
import { useState } from 'react';
import { api, must } from '../api/client';
import { Message, Page, useAction, useLoad } from '../components/ui';

type Spec = { name: string; type: string; description: string; constraint: string; enum: string[] | null; inheritable: boolean; kill_switch: boolean };

function ValueEditor({ spec, value, onSave, busy }: { spec: Spec; value: unknown; onSave: (v: unknown) => void; busy: boolean }) {
  const [text, setText] = useState(typeof value === 'object' && value !== null ? JSON.stringify(value) : value === null || value === undefined ? '' : String(value));
  const id = `policy-${spec.name}`;
  const parse = (): unknown => {
    if (spec.type === 'boolean') return text === 'true';
    if (spec.type === 'integer' || spec.type === 'number') return text.trim() === '' ? null : Number(text);
    if (spec.type === 'object') return JSON.parse(text || '{}');
    return text === '' ? null : text;
  };
  return (
    <form className="inline" onSubmit={(e) => { e.preventDefault(); try { onSave(parse()); } catch { onSave(Symbol.for('invalid')); } }}>
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

export function Policy({ tenantId }: { tenantId: string }) {
  const spec = useLoad(async () => must(await api.GET('/v1/admin/tenant-policy/registry-spec')).fields as Spec[], []);
  const policy = useLoad(async () => must(await api.GET('/v1/admin/tenant-policy/{tenant_id}', { params: { path: { tenant_id: tenantId } } })), [tenantId]);
  const defaults = useLoad(async () => must(await api.GET('/v1/admin/tenant-policy/defaults-view')).defaults as Record<string, unknown>, []);
  const action = useAction();
  const [filter, setFilter] = useState('');
  const fields = (policy.data?.fields ?? {}) as Record<string, { value: unknown; source: string }>;

  const patch = (name: string, value: unknown, done: string) =>
    action.run(async () => {
      if (value === Symbol.for('invalid')) throw new Error(`${name}: the value is not valid JSON.`);
      must(await api.PATCH('/v1/admin/tenant-policy/{tenant_id}', { params: { path: { tenant_id: tenantId } }, body: { [name]: value } as never }));
      await policy.reload();
    }, done);

  const resetAll = () =>
    action.run(async () => {
      must(await api.DELETE('/v1/admin/tenant-policy/{tenant_id}', { params: { path: { tenant_id: tenantId } } }));
      await policy.reload();
    }, 'Every inheritable setting now follows the platform defaults.');

  const shown = (spec.data ?? []).filter((s) => s.name.includes(filter.trim()));
  return (
    <Page title="Tenant policy" actions={<button onClick={() => void resetAll()} disabled={action.busy}>Reset all to inherit</button>}>
      <Message error={spec.error ?? policy.error ?? defaults.error ?? action.error} notice={action.notice} />
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
                  <td>{f && <ValueEditor spec={s} value={f.value} busy={action.busy} onSave={(v) => void patch(s.name, v, `${s.name} saved.`)} />}</td>
                  <td className={`source source-${f?.source}`}>{f?.source === 'tenant' ? 'this tenant' : 'platform'}</td>
                  <td><code>{JSON.stringify(defaults.data?.[s.name] ?? null)}</code></td>
                  <td>{s.inheritable && f?.source === 'tenant' && <button onClick={() => void patch(s.name, null, `${s.name} inherits the platform default again.`)} disabled={action.busy} aria-label={`Reset ${s.name} to inherit`}>Reset</button>}</td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
    </Page>
  );
}
