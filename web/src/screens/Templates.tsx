// Templates: the list, and the editor (fields as a JSON schema, rules from the rule-kinds
// catalogue), a test on a file or a job, versions with a diff, activate and deactivate.
import { useEffect, useState } from 'react';
import { api, errorText, must, uploadWithProgress } from '../api/client';
import { diffLines } from '../components/diff';
import { type Artifact, type BBox, type CanonicalPage, PageView } from '../components/PageView';
import { Link, Message, Page, When, unavailable, useAction, useIsAdmin, useLoad } from '../components/ui';
import { navigate } from '../router';
import { type JobResult, show } from './JobDetail';

export function TemplateList() {
  const list = useLoad(async () => must(await api.GET('/v1/templates', { params: { query: { limit: 200 } } })), []);
  const isAdmin = useIsAdmin();
  return (
    <Page title="Templates" actions={isAdmin && <Link to="/templates/new" className="button primary">New template</Link>}>
      <div className="card">
        <Message error={list.error} />
        <table className="list" aria-label="Templates">
          <thead><tr><th scope="col">Name</th><th scope="col">Version</th><th scope="col">Active</th><th scope="col">Updated</th></tr></thead>
          <tbody>
            {(list.data?.items ?? []).map((t) => (
              <tr key={t.id}><td><Link to={`/templates/${t.id}`}>{t.name}</Link></td><td>{t.version}</td><td>{t.active ? 'yes' : 'no'}</td><td><When at={t.updated_at} /></td></tr>
            ))}
          </tbody>
        </table>
        {list.data && list.data.items.length === 0 && <p className="muted">No templates yet.</p>}
      </div>
      <Drafts onAccepted={() => void list.reload()} />
    </Page>
  );
}

/** Proposed templates awaiting a decision; hidden where this installation does not offer drafts. */
function Drafts({ onAccepted }: { onAccepted: () => void }) {
  const drafts = useLoad(async () => (must(await api.GET('/v1/templates/drafts')) as unknown as { items?: { id: string; proposed_name: string; auto_seen_count: number; status: string; created_at: string }[] }).items ?? [], []);
  const action = useAction();
  if (unavailable(drafts.error)) return null;
  const pending = (drafts.data ?? []).filter((d) => d.status === 'pending');
  return (
    <div className="card">
      <h2>Drafts</h2>
      <Message error={drafts.error ?? action.error} notice={action.notice} />
      {pending.length === 0 ? (
        <p className="muted">No proposed templates wait for a decision.</p>
      ) : (
        <table className="list" aria-label="Drafts">
          <thead><tr><th scope="col">Proposed name</th><th scope="col">Seen</th><th scope="col">Proposed</th><th scope="col">Decision</th></tr></thead>
          <tbody>
            {pending.map((d) => (
              <tr key={d.id}>
                <td>{d.proposed_name}</td><td>{d.auto_seen_count}</td><td><When at={d.created_at} /></td>
                <td className="buttons">
                  <button aria-label={`Accept ${d.proposed_name}`} onClick={() => void action.run(async () => { must(await api.POST('/v1/templates/drafts/{draft_id}/accept', { params: { path: { draft_id: d.id } } })); await drafts.reload(); onAccepted(); }, 'Accepted as a template.')}>Accept</button>
                  <button className="danger" aria-label={`Reject ${d.proposed_name}`} onClick={() => void action.run(async () => { must(await api.DELETE('/v1/templates/drafts/{draft_id}', { params: { path: { draft_id: d.id } } })); await drafts.reload(); }, 'Rejected.')}>Reject</button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}

const TYPES = ['string', 'number', 'integer', 'boolean', 'date'] as const;
/**
 * A field typed in a way the type list has no entry for (a list, an object, a nullable type, a
 * string with a format other than date): saved exactly as stored until another type is picked.
 */
const AS_STORED = 'as stored';
type FieldType = (typeof TYPES)[number] | typeof AS_STORED;
interface FieldRow {
  name: string;
  type: FieldType;
  /** The type and format as stored, and whether the type list has no entry for them. */
  stored: { type?: unknown; format?: unknown };
  unlisted: boolean;
  description: string;
  required: boolean;
  extra: Record<string, unknown>;
}
interface RuleRow { kind: string; target: string; params: string; severity: 'error' | 'warn'; message: string; extra: Record<string, unknown> }
type Schema = { type?: string; properties?: Record<string, Record<string, unknown>>; required?: string[] } & Record<string, unknown>;

const newField = (): FieldRow => ({ name: '', type: 'string', stored: {}, unlisted: false, description: '', required: false, extra: {} });

function fieldsFromSchema(schema: Schema): FieldRow[] {
  return Object.entries(schema.properties ?? {}).map(([name, p]) => {
    const { type, format, description, ...extra } = p as { type?: unknown; format?: unknown; description?: string };
    const listed = format === undefined && typeof type === 'string' && type !== 'date' && (TYPES as readonly string[]).includes(type);
    const t: FieldType = type === 'string' && format === 'date' ? 'date' : listed ? (type as FieldType) : AS_STORED;
    const stored = { ...(type !== undefined ? { type } : {}), ...(format !== undefined ? { format } : {}) };
    return { name, type: t, stored, unlisted: t === AS_STORED, description: description ?? '', required: (schema.required ?? []).includes(name), extra };
  });
}

/** The schema's own keywords besides its fields (additionalProperties, $defs, title…): kept as they are. */
function schemaKeywords(schema: Schema | undefined): Record<string, unknown> {
  const { type: _type, properties: _properties, required: _required, ...rest } = schema ?? {};
  return rest;
}

function typing(r: FieldRow): Record<string, unknown> {
  if (r.type === AS_STORED) return r.stored;
  return r.type === 'date' ? { type: 'string', format: 'date' } : { type: r.type };
}

function schemaFromFields(rows: FieldRow[], keywords: Record<string, unknown>): Schema {
  const properties: Record<string, Record<string, unknown>> = {};
  for (const r of rows.filter((r) => r.name.trim())) {
    properties[r.name.trim()] = { ...r.extra, ...typing(r), ...(r.description ? { description: r.description } : {}) };
  }
  const required = rows.filter((r) => r.required && r.name.trim()).map((r) => r.name.trim());
  return { ...keywords, type: 'object', properties, ...(required.length ? { required } : {}) };
}

function storedTypeLabel(stored: FieldRow['stored']): string {
  const type = Array.isArray(stored.type) ? stored.type.join(' or ') : String(stored.type ?? 'any');
  return `${AS_STORED} (${type}${stored.format ? `, ${String(stored.format)}` : ''})`;
}

function rulesFromTemplate(rules: Record<string, unknown>[]): RuleRow[] {
  return rules.map((rule) => {
    const { kind, field, fields, params, severity, message, ...extra } = rule;
    return {
      kind: String(kind),
      target: Array.isArray(fields) ? (fields as string[]).join(', ') : String(field ?? ''),
      params: params ? JSON.stringify(params) : '',
      severity: severity === 'warn' ? 'warn' : 'error',
      message: String(message ?? ''),
      extra,
    };
  });
}

/** The rule's field or fields, as its kind takes them (rule-kinds `target`). */
function ruleTarget(target: string | undefined, names: string[]): Record<string, unknown> {
  if (target === 'none') return {};
  if (target === 'fields' || (target === 'either' && names.length > 1)) return { fields: names };
  return { field: names[0] ?? '' };
}

function ruleBody(r: RuleRow, kinds: RuleKind[]): Record<string, unknown> {
  const kind = kinds.find((k) => k.kind === r.kind);
  const targets = r.target.split(',').map((s) => s.trim()).filter(Boolean);
  let params: unknown;
  if (r.params.trim()) {
    try {
      params = JSON.parse(r.params);
    } catch {
      throw new Error(`The params of the ${r.kind} rule are not valid JSON.`);
    }
  }
  return { ...r.extra, kind: r.kind, ...ruleTarget(kind?.target, targets), ...(params !== undefined ? { params } : {}), severity: r.severity, ...(r.message ? { message: r.message } : {}) };
}

type RuleKind = { kind: string; description: string; target: string; params: Record<string, unknown>; example: Record<string, unknown> };

export function TemplateEditor({ templateId }: { templateId: string | null }) {
  const kinds = useLoad(async () => must(await api.GET('/v1/templates/meta/rule-kinds')).items as RuleKind[], []);
  const existing = useLoad(async () => (templateId ? must(await api.GET('/v1/templates/{template_id}', { params: { path: { template_id: templateId } } })) : null), [templateId]);
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [overlay, setOverlay] = useState('');
  const [fields, setFields] = useState<FieldRow[]>([newField()]);
  const [rules, setRules] = useState<RuleRow[]>([]);
  const save = useAction();
  const isAdmin = useIsAdmin();
  const t = existing.data;
  useEffect(() => {
    if (!t) return;
    setName(t.name);
    setDescription(t.description ?? '');
    setOverlay(t.prompt_overlay ?? '');
    setFields(fieldsFromSchema(t.json_schema as Schema));
    setRules(rulesFromTemplate(t.validation_rules));
  }, [t]);

  const payload = () => ({
    name: name.trim(),
    description: description.trim() || null,
    prompt_overlay: overlay,
    json_schema: schemaFromFields(fields, schemaKeywords(t?.json_schema as Schema | undefined)) as Record<string, unknown>,
    validation_rules: rules.map((r) => ruleBody(r, kinds.data ?? [])),
    ...(t ? { review_thresholds: t.review_thresholds as never, post_processing: t.post_processing as never } : {}),
  });

  const onSave = () =>
    save.run(async () => {
      if (t) {
        must(await api.PUT('/v1/templates/{template_id}', { params: { path: { template_id: t.id } }, body: payload() }));
        await existing.reload();
      } else {
        const created = must(await api.POST('/v1/templates', { body: payload() }));
        navigate(`/templates/${created.id}`, true);
      }
    }, 'Saved.');

  const setField = (i: number, patch: Partial<FieldRow>) => setFields(fields.map((f, j) => (j === i ? { ...f, ...patch } : f)));
  const setRule = (i: number, patch: Partial<RuleRow>) => setRules(rules.map((r, j) => (j === i ? { ...r, ...patch } : r)));
  const fieldNames = fields.map((f) => f.name.trim()).filter(Boolean);

  // An id that names no template (deleted, mistyped) is that, not an empty "New template" whose save would create one.
  if (templateId && existing.error) {
    return (
      <Page title="Template not found">
        <Message error={existing.error} />
        <p><Link to="/templates">Back to the templates</Link></p>
      </Page>
    );
  }
  if (templateId && !t) return <Page title="Template"><p role="status">Loading…</p></Page>;

  return (
    <Page
      title={t ? `Template ${t.name}` : 'New template'}
      actions={t && <span className="muted">version {t.version} · {t.active ? 'active' : 'inactive'}</span>}
    >
      <Message error={existing.error ?? kinds.error ?? save.error} notice={save.notice} />
      <form className="card" onSubmit={(e) => { e.preventDefault(); void onSave(); }} aria-label="Template">
        <div className="row">
          <label>Name<input required pattern="[a-z0-9][a-z0-9_\-]*" title="Lower-case letters, digits, _ and -" value={name} onChange={(e) => setName(e.target.value)} /></label>
          <label className="grow">Description<input value={description} onChange={(e) => setDescription(e.target.value)} /></label>
        </div>
        <label>Prompt overlay<textarea rows={2} value={overlay} onChange={(e) => setOverlay(e.target.value)} /></label>

        <fieldset>
          <legend>Fields</legend>
          <table className="editor" aria-label="Fields">
            <thead><tr><th scope="col">Name</th><th scope="col">Type</th><th scope="col">Description (helps find it)</th><th scope="col">Required</th><th scope="col"><span className="visually-hidden">Remove</span></th></tr></thead>
            <tbody>
              {fields.map((f, i) => (
                <tr key={i}>
                  <td><input aria-label={`Field ${i + 1} name`} value={f.name} onChange={(e) => setField(i, { name: e.target.value })} /></td>
                  <td><select aria-label={`Field ${i + 1} type`} value={f.type} onChange={(e) => setField(i, { type: e.target.value as FieldType })}>
                    {TYPES.map((ty) => <option key={ty}>{ty}</option>)}
                    {f.unlisted && <option value={AS_STORED}>{storedTypeLabel(f.stored)}</option>}
                  </select></td>
                  <td><input aria-label={`Field ${i + 1} description`} value={f.description} onChange={(e) => setField(i, { description: e.target.value })} /></td>
                  <td><input type="checkbox" aria-label={`Field ${i + 1} required`} checked={f.required} onChange={(e) => setField(i, { required: e.target.checked })} /></td>
                  <td><button type="button" onClick={() => setFields(fields.filter((_, j) => j !== i))} aria-label={`Remove field ${i + 1}`}>✕</button></td>
                </tr>
              ))}
            </tbody>
          </table>
          <button type="button" onClick={() => setFields([...fields, newField()])}>Add field</button>
        </fieldset>

        <fieldset>
          <legend>Rules</legend>
          <table className="editor" aria-label="Rules">
            <thead><tr><th scope="col">Kind</th><th scope="col">Field(s)</th><th scope="col">Params (JSON)</th><th scope="col">Severity</th><th scope="col">Message</th><th scope="col"><span className="visually-hidden">Remove</span></th></tr></thead>
            <tbody>
              {rules.map((r, i) => {
                const kind = (kinds.data ?? []).find((k) => k.kind === r.kind);
                return (
                  <tr key={i}>
                    <td>
                      <select aria-label={`Rule ${i + 1} kind`} value={r.kind} onChange={(e) => { const k = (kinds.data ?? []).find((x) => x.kind === e.target.value); setRule(i, { kind: e.target.value, params: k?.example?.params ? JSON.stringify(k.example.params) : '' }); }}>
                        {(kinds.data ?? []).map((k) => <option key={k.kind} value={k.kind}>{k.kind}</option>)}
                      </select>
                      {kind && <small className="muted block">{kind.description}</small>}
                    </td>
                    <td><input aria-label={`Rule ${i + 1} field`} list="template-fields" value={r.target} placeholder={kind?.target === 'fields' ? 'a, b, c' : 'field'} onChange={(e) => setRule(i, { target: e.target.value })} /></td>
                    <td><input aria-label={`Rule ${i + 1} params`} value={r.params} onChange={(e) => setRule(i, { params: e.target.value })} /></td>
                    <td><select aria-label={`Rule ${i + 1} severity`} value={r.severity} onChange={(e) => setRule(i, { severity: e.target.value as RuleRow['severity'] })}><option>error</option><option>warn</option></select></td>
                    <td><input aria-label={`Rule ${i + 1} message`} value={r.message} onChange={(e) => setRule(i, { message: e.target.value })} /></td>
                    <td><button type="button" onClick={() => setRules(rules.filter((_, j) => j !== i))} aria-label={`Remove rule ${i + 1}`}>✕</button></td>
                  </tr>
                );
              })}
            </tbody>
          </table>
          <datalist id="template-fields">{fieldNames.map((n) => <option key={n} value={n} />)}</datalist>
          <button type="button" onClick={() => setRules([...rules, { kind: kinds.data?.[0]?.kind ?? 'required', target: fieldNames[0] ?? '', params: '', severity: 'error', message: '', extra: {} }])}>Add rule</button>
        </fieldset>
        {isAdmin ? (
          <button type="submit" className="primary" disabled={save.busy}>{t ? 'Save as new version' : 'Create template'}</button>
        ) : (
          <p className="muted">Saving a template is for tenant admins; you can test it as it stands.</p>
        )}
      </form>
      <TemplateTest inline={() => payload()} />
      {t && isAdmin && <TemplateAdmin id={t.id} name={t.name} active={t.active} onChange={() => void existing.reload()} />}
      {t && <Versions key={t.version} id={t.id} />}
    </Page>
  );
}

function TemplateTest({ inline }: { inline: () => Record<string, unknown> }) {
  const [file, setFile] = useState<File | null>(null);
  const [jobId, setJobId] = useState('');
  const [result, setResult] = useState<{ status: string; review_reasons: string[]; extraction: Record<string, unknown> } | null>(null);
  const action = useAction();
  const recent = useLoad(async () => must(await api.GET('/v1/documents', { params: { query: { limit: 20, status: 'completed' } } })).items, []);
  const run = () =>
    action.run(async () => {
      const form = new FormData();
      form.append('template', JSON.stringify({ ...inline(), name: undefined }));
      if (file) form.append('file', file, file.name);
      else if (jobId) form.append('job_id', jobId);
      else throw new Error('Choose a file or a job to test on.');
      const res = await uploadWithProgress('/v1/templates/test', form, () => undefined);
      if (res.status !== 200) throw new Error(`The test failed: ${errorText(res.body, res.status)}`);
      setResult(res.body);
      setTested(file ? null : jobId);
      setPageNumber(null);
      setShownField(null);
    });
  const [tested, setTested] = useState<string | null>(null);
  const job = useLoad(async () => (tested ? must(await api.GET('/v1/documents/{job_id}', { params: { path: { job_id: tested } } })) : null), [tested]);
  const x = result?.extraction as { data?: Record<string, unknown>; fields?: Record<string, { value: unknown; confidence: number; evidence?: { page: number; bbox: BBox }[] }>; validation?: { field: string; message: string; severity: string }[] } | undefined;
  const pages: CanonicalPage[] = ((job.data?.result ?? null) as JobResult | null)?.canonical?.pages ?? [];
  const marks = Object.entries(x?.fields ?? {}).flatMap(([name, f]) => (f.evidence ?? []).map((e) => ({ page: e.page, bbox: e.bbox, label: `${name}: ${show(f.value)}` })));
  // The page shown: the first with evidence, or the one a field's Show or a page button picked.
  const [pageNumber, setPageNumber] = useState<number | null>(null);
  const [shownField, setShownField] = useState<string | null>(null);
  const markedPage = pages.find((p) => p.page_number === pageNumber) ?? pages.find((p) => marks.some((m) => m.page === p.page_number)) ?? pages[0];
  return (
    <div className="card" aria-label="Test">
      <h2>Test</h2>
      <p className="muted">Runs the template as it stands in the editor, without saving anything or creating a job.</p>
      <div className="row">
        <label>File<input type="file" onChange={(e) => setFile(e.target.files?.[0] ?? null)} /></label>
        <label>or a processed job
          <select value={jobId} onChange={(e) => setJobId(e.target.value)}>
            <option value="">—</option>
            {(recent.data ?? []).map((j) => <option key={j.job_id} value={j.job_id}>{j.original_filename ?? j.job_id}</option>)}
          </select>
        </label>
        <button onClick={() => void run()} disabled={action.busy}>{action.busy ? 'Testing…' : 'Run test'}</button>
      </div>
      <Message error={action.error} />
      {result && (
        <div className="test-result" role="region" aria-label="Test result">
          <p>Would end as <strong>{result.status}</strong>{result.review_reasons.length ? ` (${result.review_reasons.join(', ')})` : ''}.</p>
          <table className="list" aria-label="Test fields">
            <thead><tr><th scope="col">Field</th><th scope="col">Value</th><th scope="col">Confidence</th><th scope="col">On the page</th></tr></thead>
            <tbody>
              {Object.entries(x?.fields ?? {}).map(([k, f]) => (
                <tr key={k} className={k === shownField ? 'shown' : undefined}>
                  <td>{k}</td>
                  <td>{show(f.value)}</td>
                  <td>{Math.round(f.confidence * 100)}%</td>
                  <td>
                    {f.evidence?.[0] && pages.length > 0 ? (
                      <button type="button" className="link" aria-label={`Show ${k} on page ${f.evidence[0].page}`} onClick={() => { setPageNumber(f.evidence![0]!.page); setShownField(k); }}>
                        page {f.evidence[0].page}
                      </button>
                    ) : (
                      <span className="muted">{f.evidence?.[0] ? `page ${f.evidence[0].page}` : '—'}</span>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          {(x?.validation ?? []).length > 0 && <ul className="validation">{x!.validation!.map((v, i) => <li key={i} className={`sev-${v.severity}`}>{v.field}: {v.message}</li>)}</ul>}
          {markedPage && job.data && (
            <>
              {pages.length > 1 && (
                <nav className="pager" aria-label="Pages of the test">
                  {pages.map((p) => {
                    const n = marks.filter((m) => m.page === p.page_number).length;
                    return (
                      <button key={p.page_number} type="button" aria-current={p.page_number === markedPage.page_number} onClick={() => { setPageNumber(p.page_number); setShownField(null); }}>
                        Page {p.page_number}{n ? ` (${n} ${n === 1 ? 'box' : 'boxes'})` : ''}
                      </button>
                    );
                  })}
                </nav>
              )}
              <PageView
                page={markedPage}
                artifacts={(job.data.artifacts ?? []) as Artifact[]}
                layers={{ blocks: false, tables: false, keyValues: false }}
                marks={marks.filter((m) => m.page === markedPage.page_number)}
                highlights={shownField ? (x?.fields?.[shownField]?.evidence ?? []).filter((e) => e.page === markedPage.page_number).map((e) => e.bbox) : []}
              />
            </>
          )}
        </div>
      )}
    </div>
  );
}

function TemplateAdmin({ id, name, active, onChange }: { id: string; name: string; active: boolean; onChange: () => void }) {
  const action = useAction();
  return (
    <div className="card actions">
      <Message error={action.error} notice={action.notice} />
      {active ? (
        <button onClick={() => void action.run(async () => { must(await api.POST('/v1/templates/{template_id}/deactivate', { params: { path: { template_id: id } } })); onChange(); }, 'Deactivated: auto-classification no longer picks it.')}>Deactivate</button>
      ) : (
        <button onClick={() => void action.run(async () => { must(await api.POST('/v1/templates/{template_id}/activate', { params: { path: { template_id: id } } })); onChange(); }, 'Activated.')}>Activate</button>
      )}
      <button
        className="danger"
        onClick={() => {
          if (!window.confirm(`Delete the template ${name}? Auto-classification and new jobs can no longer use it; jobs keep the version they used.`)) return;
          void action.run(async () => { must(await api.DELETE('/v1/templates/{template_id}', { params: { path: { template_id: id } } })); navigate('/templates'); });
        }}
      >
        Delete
      </button>
    </div>
  );
}

function Versions({ id }: { id: string }) {
  const versions = useLoad(async () => (must(await api.GET('/v1/templates/{template_id}/versions', { params: { path: { template_id: id }, query: { limit: 200 } } })) as { items: { version: number; created_at: string; template: Record<string, unknown> }[] }).items, [id]);
  const items = versions.data ?? [];
  const [a, setA] = useState<number | null>(null);
  const [b, setB] = useState<number | null>(null);
  const left = items.find((v) => v.version === (a ?? items[1]?.version));
  const right = items.find((v) => v.version === (b ?? items[0]?.version));
  const text = (v?: { template: Record<string, unknown> }) => {
    if (!v) return '';
    const { name, description, prompt_overlay, json_schema, validation_rules, review_thresholds, post_processing } = v.template;
    return JSON.stringify({ name, description, prompt_overlay, json_schema, validation_rules, review_thresholds, post_processing }, null, 2);
  };
  return (
    <div className="card">
      <h2>Versions</h2>
      <Message error={versions.error} />
      {items.length < 2 ? (
        <p className="muted">One version so far; saving creates the next.</p>
      ) : (
        <>
          <div className="row">
            <label>From<select value={left?.version} onChange={(e) => setA(Number(e.target.value))}>{items.map((v) => <option key={v.version} value={v.version}>v{v.version}</option>)}</select></label>
            <label>To<select value={right?.version} onChange={(e) => setB(Number(e.target.value))}>{items.map((v) => <option key={v.version} value={v.version}>v{v.version}</option>)}</select></label>
          </div>
          <pre className="diff" aria-label="Differences">
            {diffLines(text(left), text(right)).filter((l, i, all) => l.kind !== 'same' || all.slice(Math.max(0, i - 2), i + 3).some((n) => n.kind !== 'same')).map((l, i) => <div key={i} className={`diff-${l.kind}`}>{l.kind === 'added' ? '+ ' : l.kind === 'removed' ? '- ' : '  '}{l.text}</div>)}
          </pre>
        </>
      )}
    </div>
  );
}
