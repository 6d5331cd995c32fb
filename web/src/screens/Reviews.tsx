// The review queue, and the review screen: fields ordered by risk beside the page, keyboard first.
import { useEffect, useMemo, useRef, useState } from 'react';
import { api, must } from '../api/client';
import { type Artifact, type BBox, type CanonicalPage, PageView } from '../components/PageView';
import { Link, Message, Page, StatusBadge, When, useAction, useLoad } from '../components/ui';
import { navigate } from '../router';
import { type JobResult, show } from './JobDetail';

type ReviewStatus = 'pending' | 'in_review' | 'approved' | 'overridden' | 'reprocessed' | 'closed_by_delete';

/** The queue's default view: every review still waiting for a decision, pending first. An opened one is in_review. */
const OPEN = 'open';

async function reviewsWith(status: ReviewStatus | '') {
  return must(await api.GET('/v1/reviews', { params: { query: { limit: 100, ...(status ? { status } : {}) } } })).items;
}

export function ReviewQueue() {
  const [status, setStatus] = useState<ReviewStatus | '' | typeof OPEN>(OPEN);
  const list = useLoad(
    async () => ({ items: status === OPEN ? [...(await reviewsWith('pending')), ...(await reviewsWith('in_review'))] : await reviewsWith(status) }),
    [status],
    3000,
  );
  return (
    <Page title="Reviews">
      <div className="card">
        <div className="row filters">
          <label>
            Status
            <select value={status} onChange={(e) => setStatus(e.target.value as ReviewStatus | '' | typeof OPEN)}>
              <option value={OPEN}>open (pending, in review)</option>
              <option value="">Any</option>
              {['pending', 'in_review', 'approved', 'overridden', 'reprocessed', 'closed_by_delete'].map((s) => <option key={s} value={s}>{s.replace(/_/g, ' ')}</option>)}
            </select>
          </label>
        </div>
        <Message error={list.error} />
        <table className="list" aria-label="Reviews">
          <thead><tr><th scope="col">Document</th><th scope="col">Status</th><th scope="col">Reasons</th><th scope="col">Opened</th></tr></thead>
          <tbody>
            {(list.data?.items ?? []).map((r) => (
              <tr key={r.review_id}>
                <td><Link to={`/reviews/${r.review_id}`}>{r.original_filename ?? r.job_id}</Link></td>
                <td><StatusBadge status={r.status} /></td>
                <td>{r.reasons.join(', ')}</td>
                <td><When at={r.created_at} /></td>
              </tr>
            ))}
          </tbody>
        </table>
        {list.data && list.data.items.length === 0 && <p className="muted">Nothing waits for review.</p>}
      </div>
    </Page>
  );
}

interface FieldRow {
  path: string;
  value: unknown;
  confidence: number;
  evidence: { page: number; bbox: BBox; text: string }[];
  reasons: string[];
  risk: number;
}

/** Fields with their reasons, riskiest first: rule failures, then disagreement, low confidence, no evidence. */
export function rankFields(result: JobResult, jobReasons: string[]): FieldRow[] {
  const x = result.extraction;
  if (!x) return [];
  return Object.entries(x.fields)
    .map(([path, f]) => {
      const reasons: string[] = [];
      let risk = 0;
      for (const v of x.validation.filter((v) => v.field === path || v.field?.startsWith(`${path}.`))) {
        reasons.push(`${v.severity === 'error' ? 'rule failed' : 'rule warning'}: ${v.message}`);
        risk += v.severity === 'error' ? 100 : 40;
      }
      if (jobReasons.includes(`low_agreement:${path}`)) (reasons.push('low agreement between engines'), (risk += 30));
      if (jobReasons.includes(`low_confidence:${path}`)) (reasons.push('low confidence'), (risk += 20));
      if (!f.evidence?.length && f.value !== null && f.value !== undefined) (reasons.push('not found on the page (ungrounded)'), (risk += 15));
      return { path, value: f.value, confidence: f.confidence, evidence: f.evidence ?? [], reasons, risk: risk + (1 - f.confidence) * 10 };
    })
    .sort((a, b) => b.risk - a.risk || a.path.localeCompare(b.path));
}

/** A JSON merge patch (RFC 7386) that sets `path` (dot separated) to `value`. */
function patchFor(path: string, value: unknown, into: Record<string, unknown>): void {
  const parts = path.split('.');
  let node = into;
  for (const p of parts.slice(0, -1)) node = (node[p] ??= {}) as Record<string, unknown>;
  node[parts[parts.length - 1]] = value;
}

/**
 * A number as people write it on invoices: "34,73", "1.234,50", "1,234.50", "1'234.50", "EUR 12".
 * With both marks, the last one is the decimal mark; with one, it is decimal unless exactly three
 * digits follow it, which reads either way ("1,234" is 1234 in English and 1.234 in German): then
 * null, and the reviewer is asked to write it unambiguously.
 */
export function parseNumber(text: string): number | null {
  const t = text.replace(/[\s\u00a0\u202f']/g, '').replace(/^[^\d+-]+|[^\d]+$/g, '');
  if (!/^[+-]?[\d.,]+$/.test(t)) return null;
  const lastDot = t.lastIndexOf('.');
  const lastComma = t.lastIndexOf(',');
  let normal: string;
  if (lastDot >= 0 && lastComma >= 0) {
    const decimal = lastDot > lastComma ? '.' : ',';
    const grouping = decimal === '.' ? ',' : '.';
    if (t.indexOf(decimal) !== t.lastIndexOf(decimal)) return null;
    normal = t.split(grouping).join('').replace(decimal, '.');
  } else if (lastDot >= 0 || lastComma >= 0) {
    const mark = lastDot >= 0 ? '.' : ',';
    const parts = t.split(mark);
    if (parts.length > 2) {
      // Several of one mark: thousands groups ("1.234.567"), each of three digits.
      if (!parts.slice(1).every((p) => p.length === 3)) return null;
      normal = parts.join('');
    } else {
      if (parts[1]!.length === 3 && /\d/.test(parts[0]!)) return null;
      normal = parts.join('.');
    }
  } else {
    normal = t;
  }
  const n = Number(normal);
  return Number.isFinite(n) ? n : null;
}

/** The typed value for what the reviewer typed, by the template's schema type for that field; an Error when it cannot be one. */
function coerce(text: string, type: string | undefined, path: string): unknown {
  const t = text.trim();
  if (t === '') return null;
  if (type === 'number' || type === 'integer') {
    const n = parseNumber(t);
    if (n === null) throw new Error(`${path}: "${t}" is not a number that reads one way only. Write it with a decimal point and no thousands marks, e.g. 1234.50.`);
    if (type === 'integer' && !Number.isInteger(n)) throw new Error(`${path}: "${t}" is not a whole number.`);
    return n;
  }
  if (type === 'boolean') return /^(true|yes|1)$/i.test(t);
  return t;
}

function schemaType(schema: unknown, path: string): string | undefined {
  let node = schema as { properties?: Record<string, unknown>; type?: string } | undefined;
  for (const p of path.split('.')) node = node?.properties?.[p] as typeof node;
  return Array.isArray(node?.type) ? node?.type.find((t: string) => t !== 'null') : node?.type;
}

export function ReviewScreen({ reviewId }: { reviewId: string }) {
  const detail = useLoad(async () => must(await api.GET('/v1/reviews/{review_id}', { params: { path: { review_id: reviewId } } })), [reviewId]);
  const review = detail.data?.review;
  const job = detail.data?.job as { job_id: string; status: string; template_id: string | null; result?: JobResult; artifacts?: Artifact[] } | undefined;
  const template = useLoad(async () => (job?.template_id ? must(await api.GET('/v1/templates/{template_id}', { params: { path: { template_id: job.template_id } } })) : null), [job?.template_id]);
  const fields = useMemo(() => (job?.result ? rankFields(job.result, review?.reasons ?? []) : []), [job, review]);
  const [edits, setEdits] = useState<Record<string, string>>({});
  // By path, not position: saving re-ranks the fields.
  const [focusedPath, setFocusedPath] = useState<string | null>(null);
  const focused = Math.max(0, fields.findIndex((f) => f.path === focusedPath));
  const setFocused = (i: number) => setFocusedPath(fields[i]?.path ?? null);
  const [note, setNote] = useState('');
  const [pageNumber, setPageNumber] = useState(1);
  const inputs = useRef<(HTMLInputElement | null)[]>([]);
  const action = useAction();
  const open = review && (review.status === 'pending' || review.status === 'in_review');

  const pages: CanonicalPage[] = job?.result?.canonical?.pages ?? [];
  const current = fields[focused];
  const evidence = current?.evidence[0];
  useEffect(() => {
    if (evidence) setPageNumber(evidence.page);
  }, [evidence]);
  useEffect(() => {
    if (open && fields.length) inputs.current[0]?.focus();
  }, [open, fields.length]);
  const page = pages.find((p) => p.page_number === pageNumber) ?? pages[0];

  const focusField = (i: number) => {
    const next = Math.max(0, Math.min(fields.length - 1, i));
    setFocused(next);
    inputs.current[next]?.focus();
    inputs.current[next]?.select();
  };

  /** The edits that differ from the stored values: what a save sends, and what leaving would lose. */
  const changed = Object.entries(edits).filter(([path, text]) => text !== show(fields.find((f) => f.path === path)?.value));

  const nextReview = async () => {
    if (open && changed.length && !window.confirm('Leave this review? Your changes to its fields are not saved.')) return;
    const pending = must(await api.GET('/v1/reviews', { params: { query: { status: 'pending', limit: 5 } } })).items.filter((r) => r.review_id !== reviewId);
    navigate(pending[0] ? `/reviews/${pending[0].review_id}` : '/reviews');
  };

  const submit = () =>
    action.run(async () => {
      const noteValue = note.trim() || null;
      if (changed.length) {
        const patch: Record<string, unknown> = {};
        for (const [path, text] of changed) patchFor(path, coerce(text, schemaType(template.data?.json_schema, path), path), patch);
        must(await api.POST('/v1/reviews/{review_id}/override', { params: { path: { review_id: reviewId } }, body: { patch, note: noteValue } }));
      } else {
        must(await api.POST('/v1/reviews/{review_id}/approve', { params: { path: { review_id: reviewId } }, body: { note: noteValue } }));
      }
      setEdits({});
      await detail.reload();
    }, 'Saved. The job is completed.');

  const reprocess = () =>
    action.run(async () => {
      must(await api.POST('/v1/reviews/{review_id}/reprocess', { params: { path: { review_id: reviewId } }, body: {} }));
      await detail.reload();
    }, 'Sent back for processing.');

  // The screen's keys work wherever focus is (a closed review focuses nothing; a click on the
  // page leaves focus on the body), so they are heard on the window while the screen is shown.
  const onKey = (e: globalThis.KeyboardEvent) => {
    if ((e.ctrlKey || e.metaKey) && e.key === 'Enter') {
      e.preventDefault();
      if (open) void submit();
    } else if (e.altKey && (e.key === 'n' || e.key === 'N')) {
      e.preventDefault();
      void nextReview();
    }
  };
  const keys = useRef(onKey);
  keys.current = onKey;
  useEffect(() => {
    const listener = (e: globalThis.KeyboardEvent) => keys.current(e);
    window.addEventListener('keydown', listener);
    return () => window.removeEventListener('keydown', listener);
  }, []);

  return (
    <Page title={`Review: ${review?.original_filename ?? reviewId}`} actions={review && <StatusBadge status={review.status} />}>
      <div className="review">
        <Message error={detail.error ?? action.error} notice={action.notice} />
        <p className="muted keys">Keys: Enter next field · Shift+Enter previous · Ctrl+Enter accept · Alt+N next review · click a word to fill the focused field</p>
        {review && job && (
          <div className="split">
            <div className="fields" aria-label="Fields by risk">
              {fields.map((f, i) => (
                <div key={f.path} className={`field${i === focused ? ' focused' : ''}${f.risk >= 40 ? ' risky' : ''}`}>
                  <label htmlFor={`field-${i}`}>{f.path}</label>
                  <input
                    id={`field-${i}`}
                    ref={(el) => {
                      inputs.current[i] = el;
                    }}
                    value={edits[f.path] ?? (f.value === null || f.value === undefined ? '' : show(f.value))}
                    readOnly={!open}
                    onFocus={() => setFocused(i)}
                    onChange={(e) => setEdits({ ...edits, [f.path]: e.target.value })}
                    onKeyDown={(e) => {
                      if (e.key === 'Enter' && !e.ctrlKey && !e.metaKey) {
                        e.preventDefault();
                        focusField(e.shiftKey ? i - 1 : i + 1);
                      }
                    }}
                    aria-describedby={`why-${i}`}
                  />
                  <span className="confidence">{Math.round(f.confidence * 100)}%</span>
                  <ul id={`why-${i}`} className="reasons">{f.reasons.map((r) => <li key={r}>{r}</li>)}</ul>
                </div>
              ))}
              {open && (
                <div className="review-actions">
                  <label>Note<input value={note} onChange={(e) => setNote(e.target.value)} placeholder="Why (kept with the result)" /></label>
                  <button className="primary" onClick={() => void submit()} disabled={action.busy}>{Object.keys(edits).length ? 'Save edits and complete' : 'Approve'} (Ctrl+Enter)</button>
                  <button onClick={() => void reprocess()} disabled={action.busy}>Reprocess</button>
                </div>
              )}
              <p>
                <button onClick={() => void nextReview()}>Next review (Alt+N)</button> <Link to={`/jobs/${job.job_id}`}>Open the job</Link> <span>Job status: <StatusBadge status={job.status} /></span>
              </p>
            </div>
            <div className="page-side">
              {page ? (
                <PageView
                  page={page}
                  artifacts={job.artifacts ?? []}
                  layers={{ blocks: false, tables: false, keyValues: false }}
                  highlight={evidence && evidence.page === page.page_number ? evidence.bbox : null}
                  onWord={open && current ? (w) => setEdits((e) => ({ ...e, [current.path]: e[current.path] && e[current.path] !== show(current.value) ? `${e[current.path]} ${w.text}` : w.text })) : undefined}
                />
              ) : (
                <p className="muted">This job has no page layout to show.</p>
              )}
              {pages.length > 1 && (
                <nav className="pager" aria-label="Pages">
                  {pages.map((p) => <button key={p.page_number} aria-current={p.page_number === page?.page_number} onClick={() => setPageNumber(p.page_number)}>{p.page_number}</button>)}
                </nav>
              )}
            </div>
          </div>
        )}
      </div>
    </Page>
  );
}
