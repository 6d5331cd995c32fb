// One job: its pages with the canonical layout drawn over them, the extraction result, the
// entities, the artifacts to download, and the actions its state allows.
import { useState } from 'react';
import { api, must } from '../api/client';
import { type Artifact, type CanonicalPage, type Layers, PageView } from '../components/PageView';
import { Link, Message, Page, StatusBadge, When, useAction, useLoad } from '../components/ui';
import { navigate } from '../router';
import { FailureText, MODES } from './Documents';

const TERMINAL = ['completed', 'needs_review', 'rejected', 'failed'];

export interface ExtractionField {
  value: unknown;
  confidence: number;
  evidence: { page: number; bbox: [number, number, number, number]; text: string }[];
}
export interface JobResult {
  canonical?: { pages: CanonicalPage[] };
  entities?: { type: string; text: string; value: unknown; page: number; confidence: number }[];
  extraction?: {
    template_id: string;
    template_version: number;
    data: Record<string, unknown>;
    fields: Record<string, ExtractionField>;
    validation: { rule: string; field: string; severity: string; message: string }[];
    review_reasons: string[];
  };
}

async function download(a: Artifact) {
  const res = await api.GET('/v1/artifacts/{artifact_id}', { params: { path: { artifact_id: a.id } }, parseAs: 'blob' });
  if (!res.data) throw new Error('The artifact could not be downloaded.');
  const url = URL.createObjectURL(res.data as Blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = a.filename;
  link.click();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

export function show(value: unknown): string {
  if (value === null || value === undefined) return '—';
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

/**
 * The pages line: how far the run got, in words while it runs. The page count is known once the
 * document is read (a rerun keeps the count of the run before), so a running job without one reads
 * "reading pages…", never "0 of ?".
 */
export function pagesText(j: { status: string; page_count?: number | null; pages_processed?: number | null; page_range?: string | null }): string {
  const done = j.pages_processed ?? 0;
  const range = j.page_range ? ` (range ${j.page_range})` : '';
  if (j.status === 'queued') return `waiting to start${range}`;
  if (j.status === 'processing') {
    if (j.page_count) return `reading pages: ${done} of ${j.page_count}${range}`;
    return `${done > 0 ? `reading pages: ${done} so far` : 'reading pages…'}${range}`;
  }
  if (j.page_count === null || j.page_count === undefined) return `${done > 0 ? `${done} read` : 'none read'}${range}`;
  return `${done} of ${j.page_count}${range}`;
}

/** The open review of a job waiting for review, or a sentence saying why there is none. */
async function openReviewOf(jobId: string): Promise<string> {
  const { items } = must(await api.GET('/v1/reviews', { params: { query: { job_id: jobId, limit: 5 } } }));
  const open = items.find((r) => r.status === 'pending' || r.status === 'in_review');
  if (!open) throw new Error('This job has no open review any more (it was decided, or the job is running again). Reload the job to see where it stands.');
  return open.review_id;
}

export function JobDetail({ jobId }: { jobId: string }) {
  const [live, setLive] = useState(true);
  const job = useLoad(
    async () => {
      const j = must(await api.GET('/v1/documents/{job_id}', { params: { path: { job_id: jobId } } }));
      setLive(!TERMINAL.includes(j.status));
      return j;
    },
    [jobId],
    live ? 1500 : false,
  );
  const action = useAction();
  // Its own error, shown beside the button: a failed "Open its review" said nothing at all.
  const opening = useAction();
  const [layers, setLayers] = useState<Layers>({ blocks: true, tables: true, keyValues: true });
  const [pageRange, setPageRange] = useState('');
  const [mode, setMode] = useState('');
  const [pageIndex, setPageIndex] = useState(0);
  const j = job.data;
  const result = (j?.result ?? null) as JobResult | null;
  const pages = result?.canonical?.pages ?? [];
  const artifacts = (j?.artifacts ?? []) as Artifact[];
  const page = pages[Math.min(pageIndex, pages.length - 1)];

  const act = (label: string, call: () => Promise<{ error?: unknown; response: Response }>) =>
    action.run(async () => {
      must(await call());
      setLive(true);
      await job.reload();
    }, label);

  return (
    <Page title={j?.original_filename ?? jobId} actions={j && <StatusBadge status={j.status} />}>
      <Message error={job.error ?? action.error} notice={action.notice} />
      {j && (
        <>
          <dl className="facts">
            <dt>Job</dt>
            <dd><code>{j.job_id}</code></dd>
            <dt>Mode</dt>
            <dd>{j.processing_mode}</dd>
            <dt>Template</dt>
            <dd>{j.template_id ? <Link to={`/templates/${j.template_id}`}>{j.template_id} v{j.template_version}</Link> : 'none'}</dd>
            <dt>Pages</dt>
            <dd>{pagesText(j)}</dd>
            <dt>Created</dt>
            <dd><When at={j.created_at} /></dd>
            <dt>Finished</dt>
            <dd><When at={j.finished_at} /></dd>
            {j.batch_id && (<><dt>Batch</dt><dd><Link to={`/batches/${j.batch_id}`}>{j.batch_id}</Link></dd></>)}
            {j.failure_code && (<><dt>Failure</dt><dd><FailureText job={j} /></dd></>)}
          </dl>

          <div className="card actions" aria-label="Actions">
            {j.deleted_at ? (
              <button onClick={() => act('Restored.', () => api.POST('/v1/documents/{job_id}/restore', { params: { path: { job_id: jobId } } }))} disabled={action.busy}>Restore</button>
            ) : (
              <>
                {!TERMINAL.includes(j.status) && (j.cancel_requested
                  ? <span className="muted">Stopping: the cancel was asked, and the job stops at its next step.</span>
                  : <button onClick={() => act('Cancel requested.', () => api.POST('/v1/documents/{job_id}/cancel', { params: { path: { job_id: jobId } } }))} disabled={action.busy}>Cancel</button>)}
                {(j.status === 'failed' || j.status === 'rejected') && <button onClick={() => act('Queued again.', () => api.POST('/v1/documents/{job_id}/retry', { params: { path: { job_id: jobId } } }))} disabled={action.busy}>Retry</button>}
                {TERMINAL.includes(j.status) && (
                  <form className="inline" onSubmit={(e) => { e.preventDefault(); void act('Reprocessing.', () => api.POST('/v1/documents/{job_id}/reprocess', { params: { path: { job_id: jobId } }, body: { ...(pageRange.trim() ? { page_range: pageRange.trim() } : {}), ...(mode ? { processing_mode: mode as (typeof MODES)[number] } : {}) } })); }}>
                    <label>Page range<input value={pageRange} onChange={(e) => setPageRange(e.target.value)} placeholder={j.page_range ?? 'all pages'} /></label>
                    <label>Mode<select value={mode} onChange={(e) => setMode(e.target.value)}><option value="">keep ({j.processing_mode})</option>{MODES.map((m) => <option key={m}>{m}</option>)}</select></label>
                    <button type="submit" disabled={action.busy}>Reprocess</button>
                  </form>
                )}
                <button className="danger" onClick={() => window.confirm('Delete this job? It can be restored for 30 days.') && act('Deleted. It can be restored for 30 days.', () => api.DELETE('/v1/documents/{job_id}', { params: { path: { job_id: jobId } } }))} disabled={action.busy}>Delete</button>
              </>
            )}
          </div>

          {pages.length > 0 && page && (
            <div className="card">
              <div className="row">
                <h2>Page {page.page_number}</h2>
                <nav className="pager" aria-label="Pages">
                  <button onClick={() => setPageIndex(Math.max(0, pageIndex - 1))} disabled={pageIndex === 0}>Previous page</button>
                  <span>{pageIndex + 1} / {pages.length}</span>
                  <button onClick={() => setPageIndex(Math.min(pages.length - 1, pageIndex + 1))} disabled={pageIndex >= pages.length - 1}>Next page</button>
                </nav>
                <fieldset className="layers">
                  <legend>Show</legend>
                  {(['blocks', 'tables', 'keyValues'] as const).map((k) => (
                    <label key={k} className="check"><input type="checkbox" checked={layers[k]} onChange={(e) => setLayers({ ...layers, [k]: e.target.checked })} /> {k === 'keyValues' ? 'key-values' : k}</label>
                  ))}
                </fieldset>
              </div>
              <PageView page={page} artifacts={artifacts} layers={layers} />
            </div>
          )}

          {result?.extraction && (
            <div className="card">
              <h2>Extraction</h2>
              <table className="list" aria-label="Extracted fields">
                <thead><tr><th scope="col">Field</th><th scope="col">Value</th><th scope="col">Confidence</th></tr></thead>
                <tbody>
                  {Object.entries(result.extraction.fields).map(([name, f]) => (
                    <tr key={name}><td>{name}</td><td>{show(f.value)}</td><td>{Math.round(f.confidence * 100)}%</td></tr>
                  ))}
                </tbody>
              </table>
              {result.extraction.validation.length > 0 && (
                <ul className="validation" aria-label="Rule results">
                  {result.extraction.validation.map((v, i) => <li key={i} className={`sev-${v.severity}`}>{v.field}: {v.message}</li>)}
                </ul>
              )}
              {j.status === 'needs_review' && (
                <div className="open-review">
                  <p><button className="primary" disabled={opening.busy} onClick={() => void opening.run(async () => navigate(`/reviews/${await openReviewOf(jobId)}`))}>Open its review</button></p>
                  <Message error={opening.error} />
                </div>
              )}
            </div>
          )}

          {result?.entities && result.entities.length > 0 && (
            <div className="card">
              <h2>Entities</h2>
              <table className="list" aria-label="Entities">
                <thead><tr><th scope="col">Type</th><th scope="col">Text</th><th scope="col">Value</th><th scope="col">Page</th></tr></thead>
                <tbody>{result.entities.map((e, i) => <tr key={i}><td>{e.type}</td><td>{e.text}</td><td>{show(e.value)}</td><td>{e.page}</td></tr>)}</tbody>
              </table>
            </div>
          )}

          {artifacts.length > 0 && (
            <div className="card">
              <h2>Artifacts</h2>
              <ul className="artifacts">
                {artifacts.map((a) => (
                  <li key={a.id}><button className="link" onClick={() => void action.run(() => download(a))}>{a.filename}</button> <span className="muted">{a.kind}, {a.size_bytes === null ? 'drawn when first opened' : `${(a.size_bytes / 1024).toFixed(1)} KB`}</span></li>
                ))}
              </ul>
            </div>
          )}
        </>
      )}
    </Page>
  );
}
