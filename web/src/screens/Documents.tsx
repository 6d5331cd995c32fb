// Documents: upload many files with per-file progress (template and mode chosen first), and the
// live job list with filters and search.
import { useState } from 'react';
import { api, errorText, must, uploadWithProgress } from '../api/client';
import { filesFromDrop } from '../components/upload';
import { Link, Message, Page, Pager, StatusBadge, When, useCursors, useLoad } from '../components/ui';

const STATUSES = ['queued', 'processing', 'completed', 'needs_review', 'rejected', 'failed'] as const;
type Status = (typeof STATUSES)[number];
export const MODES = ['extraction', 'entities', 'canonical'] as const;

interface UploadRow {
  key: string;
  name: string;
  progress: number;
  state: 'uploading' | 'done' | 'failed';
  message?: string;
  jobId?: string;
}

export function useTemplates() {
  return useLoad(async () => must(await api.GET('/v1/templates', { params: { query: { limit: 200 } } })).items as { id: string; name: string; active?: boolean }[], []);
}

/** What the list knows of a job an upload made: its status and why it failed. */
type JobState = { status: string; failure_code?: string | null; failure_message?: string | null };

/** A failed or rejected job's reason in plain words, with its code on hover (a page range past the document's end, for one). */
export function FailureText({ job }: { job: JobState }) {
  if (!job.failure_code && !job.failure_message) return null;
  return <span className="error-text failure" title={job.failure_code ?? undefined}>{job.failure_message ?? job.failure_code}</span>;
}

function Uploader({ onUploaded, jobs }: { onUploaded: () => void; jobs: Map<string, JobState> }) {
  const templates = useTemplates();
  const [templateId, setTemplateId] = useState('');
  const [mode, setMode] = useState<(typeof MODES)[number]>('extraction');
  const [pageRange, setPageRange] = useState('');
  const [rows, setRows] = useState<UploadRow[]>([]);
  const [over, setOver] = useState(false);

  const send = async (files: File[]) => {
    const fresh = files.map((f, i) => ({ key: `${Date.now()}-${i}-${f.name}`, name: f.name, progress: 0, state: 'uploading' as const }));
    setRows((r) => [...fresh, ...r]);
    const update = (key: string, patch: Partial<UploadRow>) => setRows((r) => r.map((row) => (row.key === key ? { ...row, ...patch } : row)));
    // A few at a time: many parallel uploads would starve each other and the server.
    const queue = files.map((file, i) => ({ file, key: fresh[i].key }));
    const worker = async () => {
      for (let next = queue.shift(); next; next = queue.shift()) {
        const form = new FormData();
        if (templateId) form.append('template_id', templateId);
        form.append('processing_mode', mode);
        if (pageRange.trim()) form.append('page_range', pageRange.trim());
        form.append('file', next.file, next.file.name);
        const key = next.key;
        try {
          const res = await uploadWithProgress('/v1/documents', form, (p) => update(key, { progress: p }));
          if (res.status === 202 || res.status === 200) update(key, { state: 'done', progress: 1, jobId: res.body.job_id });
          else update(key, { state: 'failed', message: errorText(res.body, res.status) });
        } catch (err) {
          update(key, { state: 'failed', message: (err as Error).message });
        }
        onUploaded();
      }
    };
    await Promise.all([worker(), worker(), worker()]);
  };

  return (
    <div className="card">
      <h2>Upload</h2>
      <div className="row">
        <label>
          Template
          <select value={templateId} onChange={(e) => setTemplateId(e.target.value)}>
            <option value="">Auto-classify</option>
            {(templates.data ?? []).map((t) => (
              <option key={t.id} value={t.id}>
                {t.name}
              </option>
            ))}
          </select>
        </label>
        <label>
          Mode
          <select value={mode} onChange={(e) => setMode(e.target.value as (typeof MODES)[number])}>
            {MODES.map((m) => (
              <option key={m}>{m}</option>
            ))}
          </select>
        </label>
        <label>
          Pages (optional)
          <input placeholder="e.g. 1-3,7" value={pageRange} onChange={(e) => setPageRange(e.target.value)} />
        </label>
      </div>
      <div
        className={`dropzone${over ? ' over' : ''}`}
        onDragOver={(e) => {
          e.preventDefault();
          setOver(true);
        }}
        onDragLeave={() => setOver(false)}
        onDrop={async (e) => {
          e.preventDefault();
          setOver(false);
          void send(await filesFromDrop(e.dataTransfer));
        }}
      >
        <p>Drop files or a folder here, or</p>
        <label className="button">
          Choose files
          <input
            type="file"
            multiple
            className="visually-hidden"
            aria-label="Choose files to upload"
            onChange={(e) => {
              const files = Array.from(e.target.files ?? []);
              e.target.value = '';
              void send(files);
            }}
          />
        </label>
      </div>
      {rows.length > 0 && (
        <ul className="uploads" aria-label="Uploads">
          {rows.map((r) => (
            <li key={r.key} className={`upload-${r.state}`}>
              <span className="name">{r.name}</span>
              <progress max={1} value={r.progress} aria-label={`Upload progress of ${r.name}`} />
              <span>
                {r.state === 'done' && r.jobId ? (
                  <>
                    <Link to={`/jobs/${r.jobId}`}>{r.jobId}</Link>
                    {/* Accepted is not done: a job that then fails (a page range past the document's end) says why here too. */}
                    {jobs.get(r.jobId)?.failure_code && <> <FailureText job={jobs.get(r.jobId)!} /></>}
                  </>
                ) : r.state === 'failed' ? <span className="error-text">{r.message}</span> : `${Math.round(r.progress * 100)}%`}
              </span>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

export function Documents() {
  const [status, setStatus] = useState<Status | ''>('');
  const [q, setQ] = useState('');
  const [deleted, setDeleted] = useState(false);
  // The cursors of the pages before this one (the newest page has none): older and back again.
  const paging = useCursors();
  const cursor = paging.cursor;
  const jobs = useLoad(
    async () =>
      must(
        await api.GET('/v1/documents', {
          params: { query: { limit: 100, ...(status ? { status } : {}), ...(q.trim() ? { q: q.trim() } : {}), ...(deleted ? { deleted: true } : {}), ...(cursor ? { cursor } : {}) } },
        }),
      ),
    [status, q, deleted, cursor],
    2000,
  );
  const filter = <T,>(set: (v: T) => void) => (v: T) => {
    paging.reset();
    set(v);
  };
  return (
    <Page title="Documents">
      <Uploader onUploaded={() => void jobs.reload()} jobs={new Map((jobs.data?.items ?? []).map((j) => [j.job_id, j]))} />
      <div className="card">
        <h2>Jobs</h2>
        <form className="row filters" role="search" onSubmit={(e) => e.preventDefault()}>
          <label>
            Search
            <input type="search" placeholder="File name or job id" value={q} onChange={(e) => filter(setQ)(e.target.value)} />
          </label>
          <label>
            Status
            <select value={status} onChange={(e) => filter(setStatus)(e.target.value as Status | '')}>
              <option value="">Any</option>
              {STATUSES.map((s) => (
                <option key={s} value={s}>
                  {s.replace('_', ' ')}
                </option>
              ))}
            </select>
          </label>
          <label className="check">
            <input type="checkbox" checked={deleted} onChange={(e) => filter(setDeleted)(e.target.checked)} /> Deleted
          </label>
        </form>
        <Message error={jobs.error} />
        <table className="list" aria-label="Jobs">
          <thead>
            <tr>
              <th scope="col">File</th>
              <th scope="col">Status</th>
              <th scope="col">Mode</th>
              <th scope="col">Pages</th>
              <th scope="col">Created</th>
            </tr>
          </thead>
          <tbody>
            {(jobs.data?.items ?? []).map((j) => (
              <tr key={j.job_id} data-job-id={j.job_id}>
                <td>
                  <Link to={`/jobs/${j.job_id}`}>{j.original_filename ?? j.job_id}</Link>
                </td>
                <td>
                  <StatusBadge status={j.status} />
                  {j.failure_code && <> <FailureText job={j} /></>}
                </td>
                <td>{j.processing_mode}</td>
                <td>{j.page_count ?? '—'}</td>
                <td>
                  <When at={j.created_at} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        {jobs.data && jobs.data.items.length === 0 && <p className="muted">No jobs match.</p>}
        <Pager label="Pages of jobs" paging={paging} next={jobs.data?.next_cursor} />
      </div>
    </Page>
  );
}
