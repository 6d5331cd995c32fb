// Batches: create one from many files, watch its counts live, open its jobs, retry the failed.
import { useState } from 'react';
import { api, errorText, must, uploadWithProgress } from '../api/client';
import { Link, Message, Page, Pager, StatusBadge, When, useAction, useCursors, useLoad } from '../components/ui';
import { navigate } from '../router';
import { MODES, useTemplates } from './Documents';

const COUNT_KEYS = ['total', 'queued', 'processing', 'completed', 'needs_review', 'rejected', 'failed'] as const;

function Counts({ counts }: { counts: Record<string, number> }) {
  return <span className="counts">{COUNT_KEYS.filter((k) => k === 'total' || counts[k]).map((k) => <span key={k} className={`count count-${k}`}>{k.replace('_', ' ')} {counts[k] ?? 0}</span>)}</span>;
}

export function BatchList() {
  const paging = useCursors();
  const list = useLoad(async () => must(await api.GET('/v1/batches', { params: { query: { limit: 100, ...(paging.cursor ? { cursor: paging.cursor } : {}) } } })), [paging.cursor], 3000);
  const templates = useTemplates();
  const [name, setName] = useState('');
  const [templateId, setTemplateId] = useState('');
  const [mode, setMode] = useState('extraction');
  const [files, setFiles] = useState<File[]>([]);
  const [progress, setProgress] = useState(0);
  const create = useAction();
  const submit = () =>
    create.run(async () => {
      if (!files.length) throw new Error('Choose the files of the batch.');
      const form = new FormData();
      if (name.trim()) form.append('name', name.trim());
      if (templateId) form.append('template_id', templateId);
      form.append('processing_mode', mode);
      for (const f of files) form.append('files', f, f.name);
      const res = await uploadWithProgress('/v1/batches', form, setProgress);
      if (res.status >= 300) throw new Error(errorText(res.body, res.status));
      navigate(`/batches/${res.body.batch_id}`);
    });
  return (
    <Page title="Batches">
      <form className="card" onSubmit={(e) => { e.preventDefault(); void submit(); }} aria-label="New batch">
        <h2>New batch</h2>
        <div className="row">
          <label>Name<input value={name} onChange={(e) => setName(e.target.value)} /></label>
          <label>Template<select value={templateId} onChange={(e) => setTemplateId(e.target.value)}><option value="">Auto-classify</option>{(templates.data ?? []).map((t) => <option key={t.id} value={t.id}>{t.name}</option>)}</select></label>
          <label>Mode<select value={mode} onChange={(e) => setMode(e.target.value)}>{MODES.map((m) => <option key={m}>{m}</option>)}</select></label>
          <label>Files<input type="file" multiple onChange={(e) => setFiles(Array.from(e.target.files ?? []))} /></label>
          <button type="submit" className="primary" disabled={create.busy}>Create batch</button>
        </div>
        {create.busy && <progress max={1} value={progress} aria-label="Upload progress" />}
        <Message error={create.error} />
      </form>
      <div className="card">
        <Message error={list.error} />
        <table className="list" aria-label="Batches">
          <thead><tr><th scope="col">Batch</th><th scope="col">Status</th><th scope="col">Counts</th><th scope="col">Created</th></tr></thead>
          <tbody>
            {(list.data?.items ?? []).map((b) => (
              <tr key={b.batch_id}><td><Link to={`/batches/${b.batch_id}`}>{b.name ?? b.batch_id}</Link></td><td><StatusBadge status={b.status} /></td><td><Counts counts={b.counts} /></td><td><When at={b.created_at} /></td></tr>
            ))}
          </tbody>
        </table>
        <Pager label="Pages of batches" paging={paging} next={list.data?.next_cursor} />
      </div>
    </Page>
  );
}

const JOB_STATUSES = ['queued', 'processing', 'completed', 'needs_review', 'rejected', 'failed'] as const;

export function BatchDetail({ batchId }: { batchId: string }) {
  const batch = useLoad(async () => must(await api.GET('/v1/batches/{batch_id}', { params: { path: { batch_id: batchId } } })), [batchId], 2000);
  // A batch holds up to 500 files: its jobs are paged (100 a page) and can be filtered by status.
  const [status, setStatus] = useState<(typeof JOB_STATUSES)[number] | ''>('');
  const paging = useCursors();
  const jobs = useLoad(
    async () => must(await api.GET('/v1/batches/{batch_id}/jobs', { params: { path: { batch_id: batchId }, query: { limit: 100, ...(status ? { status } : {}), ...(paging.cursor ? { cursor: paging.cursor } : {}) } } })),
    [batchId, status, paging.cursor],
    2000,
  );
  const action = useAction();
  const b = batch.data;
  const items = jobs.data?.items ?? [];
  return (
    <Page title={b?.name ?? batchId} actions={b && <StatusBadge status={b.status} />}>
      <Message error={batch.error ?? jobs.error ?? action.error} notice={action.notice} />
      {b && (
        <div className="card actions">
          <Counts counts={b.counts} />
          <button onClick={() => void action.run(async () => { must(await api.POST('/v1/batches/{batch_id}/retry-failed', { params: { path: { batch_id: batchId } } })); await batch.reload(); }, 'Failed jobs queued again.')} disabled={action.busy || !(b.counts.failed || b.counts.rejected)}>Retry failed</button>
          <button onClick={() => window.confirm('Cancel this batch? Its jobs that have not finished are cancelled.') && void action.run(async () => { must(await api.POST('/v1/batches/{batch_id}/cancel', { params: { path: { batch_id: batchId } } })); await batch.reload(); }, 'Cancelled.')} disabled={action.busy}>Cancel batch</button>
        </div>
      )}
      <div className="card">
        <div className="row filters">
          <label>
            Status
            <select value={status} onChange={(e) => { paging.reset(); setStatus(e.target.value as (typeof JOB_STATUSES)[number] | ''); }}>
              <option value="">Any</option>
              {JOB_STATUSES.map((s) => <option key={s} value={s}>{s.replace('_', ' ')}</option>)}
            </select>
          </label>
        </div>
        <table className="list" aria-label="Jobs of the batch">
          <thead><tr><th scope="col">File</th><th scope="col">Status</th></tr></thead>
          <tbody>{items.map((j) => <tr key={j.job_id}><td><Link to={`/jobs/${j.job_id}`}>{j.original_filename ?? j.job_id}</Link></td><td><StatusBadge status={j.status} /></td></tr>)}</tbody>
        </table>
        {jobs.data && items.length === 0 && <p className="muted">{status ? 'No job of this batch has this status.' : 'This batch has no jobs.'}</p>}
        <Pager label="Pages of the batch's jobs" paging={paging} next={jobs.data?.next_cursor} />
      </div>
    </Page>
  );
}
