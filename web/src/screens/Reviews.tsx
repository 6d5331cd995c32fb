// The review queue, and the review screen: fields ordered by risk beside the page, keyboard first.
import { type InputHTMLAttributes, type TextareaHTMLAttributes, useEffect, useMemo, useRef, useState } from 'react';
import { ApiError, api, must } from '../api/client';
import { type Artifact, type BBox, type CanonicalPage, PageView } from '../components/PageView';
import { Person, usePerson } from '../components/Person';
import { Link, Message, Page, Pager, StatusBadge, When, useAction, useCursors, useLoad } from '../components/ui';
import { navigate } from '../router';
import { REVIEW_DRAFT as DRAFT } from '../session';
import { type JobResult, show } from './JobDetail';
import { type TemplateRule, buildPatch, coerce, errorsByField, rankFields, reasonLabel, rowOf, schemaType } from './review-fields';

type ReviewStatus = 'pending' | 'in_review' | 'approved' | 'overridden' | 'reprocessed' | 'closed_by_delete';

/** The queue's default view: every review still waiting for a decision, pending first. An opened one is in_review. */
const OPEN = 'open';

type ReviewPage = { items: Awaited<ReturnType<typeof reviewPage>>['items']; next_cursor: string | null };

async function reviewPage(status: ReviewStatus | '', cursor?: string) {
  return must(await api.GET('/v1/reviews', { params: { query: { limit: 100, ...(status ? { status } : {}), ...(cursor ? { cursor } : {}) } } }));
}

/**
 * The open view pages through the pending reviews, then the in_review ones: its cursors say which
 * ("p:…", "r:…"); the page where the pending ones end starts the in_review ones.
 */
async function openPage(cursor?: string): Promise<ReviewPage> {
  if (!cursor || cursor.startsWith('p:')) {
    const pending = await reviewPage('pending', cursor?.slice(2));
    if (pending.next_cursor) return { items: pending.items, next_cursor: `p:${pending.next_cursor}` };
    const opened = await reviewPage('in_review');
    return { items: [...pending.items, ...opened.items], next_cursor: opened.next_cursor ? `r:${opened.next_cursor}` : null };
  }
  const opened = await reviewPage('in_review', cursor.slice(2));
  return { items: opened.items, next_cursor: opened.next_cursor ? `r:${opened.next_cursor}` : null };
}

export function ReviewQueue() {
  const [status, setStatus] = useState<ReviewStatus | '' | typeof OPEN>(OPEN);
  const paging = useCursors();
  const list = useLoad(
    async (): Promise<ReviewPage> => (status === OPEN ? openPage(paging.cursor) : reviewPage(status, paging.cursor)),
    [status, paging.cursor],
    3000,
  );
  return (
    <Page title="Reviews">
      <div className="card">
        <div className="row filters">
          <label>
            Status
            <select value={status} onChange={(e) => { paging.reset(); setStatus(e.target.value as ReviewStatus | '' | typeof OPEN); }}>
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
                <td><ul className="reason-list" aria-label="Reasons">{r.reasons.map((code) => <li key={code} title={code}>{reasonLabel(code)}</li>)}</ul></td>
                <td><When at={r.created_at} /></td>
              </tr>
            ))}
          </tbody>
        </table>
        {list.data && list.data.items.length === 0 && <p className="muted">{status === OPEN ? 'Nothing waits for review.' : 'No reviews match.'}</p>}
        <Pager label="Pages of reviews" paging={paging} next={list.data?.next_cursor} />
      </div>
    </Page>
  );
}

/** "Decided: approved by Ann Lee (ann@x.test) at …, note: …": what was decided on a review, by whom. */
function Decided({ r }: { r: { status: string; resolved_by?: string | null; resolved_at?: string | null; resolution_note?: string | null } }) {
  const person = usePerson(r.resolved_by);
  return (
    <p className="decided" role="status">
      Decided: {r.status.replace(/_/g, ' ')}
      {person && <> by <Person named={person} /></>}
      {r.resolved_at ? ` at ${new Date(r.resolved_at).toLocaleString()}` : ''}
      {r.resolution_note ? ` (note: ${r.resolution_note})` : ''}.
    </p>
  );
}

type BoxProps = InputHTMLAttributes<HTMLInputElement> & TextareaHTMLAttributes<HTMLTextAreaElement> & { multiline: boolean; ref: (el: HTMLInputElement | HTMLTextAreaElement | null) => void };

/** A field's box: a text area for a value of several lines (an address), which an input would flatten. */
function Box({ multiline, ref, ...props }: BoxProps) {
  return multiline ? <textarea ref={ref} rows={Math.min(6, String(props.value ?? '').split('\n').length)} {...props} /> : <input ref={ref} {...props} />;
}

interface Draft {
  edits: Record<string, string>;
  removed: string[];
  note: string;
}

/** The unsaved edits of a review kept in this tab (sessionStorage), or none. */
function readDraft(reviewId: string): Draft {
  try {
    const d = JSON.parse(sessionStorage.getItem(DRAFT + reviewId) ?? 'null') as Partial<Draft> | null;
    if (d && typeof d === 'object') return { edits: d.edits && typeof d.edits === 'object' ? d.edits : {}, removed: Array.isArray(d.removed) ? d.removed : [], note: typeof d.note === 'string' ? d.note : '' };
  } catch {
    /* storage unavailable or corrupt: no draft */
  }
  return { edits: {}, removed: [], note: '' };
}

function writeDraft(reviewId: string, d: Draft): void {
  try {
    if (Object.keys(d.edits).length || d.removed.length || d.note) sessionStorage.setItem(DRAFT + reviewId, JSON.stringify(d));
    else sessionStorage.removeItem(DRAFT + reviewId);
  } catch {
    /* private mode: the draft lives as long as the screen */
  }
}

/** A stored value as the field's box shows it: nothing for null. */
function display(value: unknown): string {
  return value === null || value === undefined ? '' : show(value);
}

/** A job still to run (sent back by reprocess): its review screen follows it until it settles. */
const RUNNING = ['queued', 'processing'];

export function ReviewScreen({ reviewId }: { reviewId: string }) {
  // A decided review whose job runs again is followed live: the job's status, and the review its
  // new run opens. An open review is read once (reading a pending review opens it).
  const [follow, setFollow] = useState(false);
  const detail = useLoad(
    async () => {
      const d = must(await api.GET('/v1/reviews/{review_id}', { params: { path: { review_id: reviewId } } }));
      const job = d.job as { job_id: string; status: string };
      const decidedNow = d.review.status !== 'pending' && d.review.status !== 'in_review';
      setFollow(decidedNow && RUNNING.includes(job.status));
      const next =
        decidedNow && job.status === 'needs_review'
          ? must(await api.GET('/v1/reviews', { params: { query: { job_id: job.job_id, limit: 5 } } })).items.find((r) => r.review_id !== reviewId && (r.status === 'pending' || r.status === 'in_review'))
          : undefined;
      return { ...d, next: next?.review_id ?? null };
    },
    [reviewId],
    follow ? 2000 : false,
  );
  const review = detail.data?.review;
  const job = detail.data?.job as { job_id: string; status: string; template_id: string | null; result?: JobResult; artifacts?: Artifact[] } | undefined;
  const extraction = job?.result?.extraction;
  // The template version the job was extracted with types the edits; the current version may differ.
  const template = useLoad(async () => {
    if (!extraction?.template_id) return null;
    const versions = must(await api.GET('/v1/templates/{template_id}/versions', { params: { path: { template_id: extraction.template_id }, query: { ...(extraction.template_version ? { version: extraction.template_version } : {}) } } })).items;
    const used = versions.find((v) => v.version === extraction.template_version);
    if (!used) throw new Error(`version ${extraction.template_version} of template ${extraction.template_id} is not kept`);
    return used.template as { json_schema?: unknown; validation_rules?: TemplateRule[] };
  }, [extraction?.template_id, extraction?.template_version]);
  // A failed rule reads as its own message in the template version the job used, when it has one.
  const rules = template.data?.validation_rules;
  const ranked = useMemo(() => rankFields(extraction, review?.reasons ?? [], rules ?? []), [extraction, review, rules]);
  const fields = ranked.fields;
  /** Typed edits need the job's template; without it only approve and reprocess are offered. */
  const editable = !!extraction && !!template.data?.json_schema;
  // Unsaved work outlives an ended session (the sign-in screen stands in for this one) and a reload.
  const [draft] = useState(() => readDraft(reviewId));
  const [removed, setRemoved] = useState<string[]>(draft.removed);
  const [edits, setEdits] = useState<Record<string, string>>(draft.edits);
  // By path, not position: saving re-ranks the fields.
  const [focusedPath, setFocusedPath] = useState<string | null>(null);
  const focused = Math.max(0, fields.findIndex((f) => f.path === focusedPath));
  const setFocused = (i: number) => setFocusedPath(fields[i]?.path ?? null);
  const [note, setNote] = useState(draft.note);
  useEffect(() => writeDraft(reviewId, { edits, removed, note }), [reviewId, edits, removed, note]);
  // A review decided meanwhile (here or elsewhere) takes no edits: what was kept for it goes.
  const decidedMeanwhile = !!review && !(review.status === 'pending' || review.status === 'in_review');
  useEffect(() => {
    if (!decidedMeanwhile) return;
    setEdits({});
    setRemoved([]);
    setNote('');
  }, [decidedMeanwhile]);
  const [pageNumber, setPageNumber] = useState(1);
  const inputs = useRef<(HTMLInputElement | HTMLTextAreaElement | null)[]>([]);
  const keepPage = useRef(false);
  const [focusCount, setFocusCount] = useState(0);
  const pageSide = useRef<HTMLDivElement>(null);
  /** Set while a save or reprocess is on its way: a second Ctrl+Enter is ignored, not sent. */
  const busy = useRef(false);
  const action = useAction();
  // A refused save names its fields: each message stands under its field, and the first such
  // field takes the focus (the message at the top may be scrolled far out of view).
  const fieldErrors = useMemo(() => errorsByField(action.error, fields.map((f) => f.path)), [action.error, fields]);
  const top = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!action.error) return;
    const i = fields.findIndex((f) => fieldErrors[f.path]);
    if (i >= 0) {
      inputs.current[i]?.focus();
      inputs.current[i]?.closest('.field')?.scrollIntoView({ block: 'nearest' });
    } else top.current?.scrollIntoView({ block: 'nearest' });
  }, [action.error]);
  const open = review && (review.status === 'pending' || review.status === 'in_review');

  const pages: CanonicalPage[] = job?.result?.canonical?.pages ?? [];
  const current = fields[focused];
  useEffect(() => {
    if (open && fields.length) inputs.current[0]?.focus();
  }, [open, fields.length]);
  const page = pages.find((p) => p.page_number === pageNumber) ?? pages[0];

  // The focused field's evidence scrolled into the page's view (the page side scrolls on its own beside the fields).
  useEffect(() => {
    const side = pageSide.current;
    const mark = side?.querySelector('rect.box-highlight');
    if (!side || !mark) return;
    if (side.scrollHeight <= side.clientHeight) {
      // The whole page fits its side; the window may still hide the box. Stacked under the fields
      // (narrow screens) the window is left alone, so the field being typed in stays in view.
      const box = mark.getBoundingClientRect();
      if (getComputedStyle(side).position === 'sticky' && (box.top < 0 || box.bottom > window.innerHeight)) mark.scrollIntoView({ block: 'nearest' });
      return;
    }
    const box = mark.getBoundingClientRect();
    const view = side.getBoundingClientRect();
    const top = Math.max(view.top, 0);
    const bottom = Math.min(view.bottom, window.innerHeight);
    if (box.top < top || box.bottom > bottom) side.scrollTop += box.top - top - Math.max(0, (bottom - top - box.height) / 2);
  }, [focusCount, focusedPath, page?.page_number]);

  const focusField = (i: number) => {
    const next = Math.max(0, Math.min(fields.length - 1, i));
    setFocused(next);
    inputs.current[next]?.focus();
    inputs.current[next]?.select();
  };

  /** The edits that differ from the stored values: what a save sends, and what leaving would lose. */
  const changed = Object.entries(edits).filter(([path, text]) => text !== display(fields.find((f) => f.path === path)?.value) && !removed.includes(rowOf(path) ?? ''));
  const dirty = changed.length > 0 || removed.length > 0;
  /** The array items the fields live in ("line_items[0]"), each with a remove button. */
  const rows = [...new Set(fields.map((f) => rowOf(f.path)).filter((r): r is string => !!r))].sort((a, b) => a.localeCompare(b, undefined, { numeric: true }));

  const nextReview = async () => {
    if (open && dirty && !window.confirm('Leave this review? Your changes to its fields are not saved.')) return;
    const pending = must(await api.GET('/v1/reviews', { params: { query: { status: 'pending', limit: 5 } } })).items.filter((r) => r.review_id !== reviewId);
    navigate(pending[0] ? `/reviews/${pending[0].review_id}` : '/reviews');
  };

  /** Another reviewer decided first (409): the screen shows the review as it now stands, and who decided it. */
  const settleConflict = async (err: unknown) => {
    if (!(err instanceof ApiError) || err.status !== 409) throw err;
    const now = must(await api.GET('/v1/reviews/{review_id}', { params: { path: { review_id: reviewId } } })).review;
    setEdits({});
    setRemoved([]);
    await detail.reload();
    if (now.status === 'pending' || now.status === 'in_review') throw err;
    throw new Error('Not saved: someone decided this review first. Their decision stands below.');
  };

  const once = (label: string, work: () => Promise<void>) => async () => {
    if (busy.current) return;
    busy.current = true;
    try {
      await action.run(() => work().catch(settleConflict), label);
    } finally {
      busy.current = false;
    }
  };

  const submit = once('Saved. The job is completed.', async () => {
    const noteValue = note.trim() || null;
    if (dirty) {
      if (!editable) throw new Error(template.loading ? 'The template is still loading; save again in a moment.' : 'Edits cannot be saved without the template this job used. Approve or reprocess instead.');
      const typed = changed.map(([path, text]) => [path, coerce(text, schemaType(template.data!.json_schema, path), path)] as [string, unknown]);
      const patch = buildPatch(extraction!.data, typed, removed);
      must(await api.POST('/v1/reviews/{review_id}/override', { params: { path: { review_id: reviewId } }, body: { patch, note: noteValue } }));
    } else {
      must(await api.POST('/v1/reviews/{review_id}/approve', { params: { path: { review_id: reviewId } }, body: { note: noteValue } }));
    }
    setEdits({});
    setRemoved([]);
    await detail.reload();
  });

  const reprocess = once('Sent back for processing.', async () => {
    must(await api.POST('/v1/reviews/{review_id}/reprocess', { params: { path: { review_id: reviewId } }, body: {} }));
    await detail.reload();
  });

  // The screen's keys work wherever focus is (a closed review focuses nothing; a click on the
  // page leaves focus on the body), so they are heard on the window while the screen is shown.
  const onKey = (e: globalThis.KeyboardEvent) => {
    if ((e.ctrlKey || e.metaKey) && e.key === 'Enter') {
      e.preventDefault();
      if (open && !busy.current) void submit();
    } else if (e.altKey && (e.key === 'n' || e.key === 'N' || e.code === 'KeyN')) {
      // By the key's place too: on a Mac, Option+N types a dead key ("˜"), not "n".
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
      <div className="review" ref={top}>
        <Message error={detail.error ?? action.error} notice={action.notice} />
        <p className="muted keys">Keys: Enter next field · Shift+Enter previous · Ctrl+Enter accept · Alt+N next review · click a word to fill the focused field</p>
        {review && !open && <Decided r={review} />}
        {open && dirty && (Object.keys(draft.edits).length > 0 || draft.removed.length > 0) && <p className="muted" role="status">Your unsaved edits to this review were kept.</p>}
        {review && !open && detail.data?.next && (
          <p className="message notice" role="status">
            The job ran again and waits for review. <Link to={`/reviews/${detail.data.next}`}>Open its new review</Link>
          </p>
        )}
        {review && open && template.error && (
          <p className="message error" role="alert">The template this job was extracted with cannot be loaded ({template.error}), so its fields cannot be edited here. Approve or reprocess instead.</p>
        )}
        {ranked.general.length > 0 && (
          <div className="review-reasons">
            <h2>Why this review</h2>
            <ul aria-label="Reasons for the whole review">{ranked.general.map((r) => <li key={r.code + r.text} title={r.code}>{r.text}</li>)}</ul>
          </div>
        )}
        {review && job && (
          <div className="split">
            <div className="fields" aria-label="Fields by risk">
              {fields.map((f, i) => (
                <div key={f.path} className={`field${i === focused ? ' focused' : ''}${f.risk >= 40 ? ' risky' : ''}${removed.includes(rowOf(f.path) ?? '') ? ' removed' : ''}`}>
                  <label htmlFor={`field-${i}`}>{f.path}</label>
                  <Box
                    multiline={display(f.value).includes('\n')}
                    id={`field-${i}`}
                    ref={(el) => {
                      inputs.current[i] = el;
                    }}
                    value={edits[f.path] ?? display(f.value)}
                    readOnly={!open || !!template.error || removed.includes(rowOf(f.path) ?? '')}
                    onFocus={() => {
                      setFocused(i);
                      // Every focus (again) shows the field's evidence, unless the focus only came back from a page button.
                      if (keepPage.current) keepPage.current = false;
                      else if (f.evidence[0]) setPageNumber(f.evidence[0].page);
                      setFocusCount((n) => n + 1);
                    }}
                    onChange={(e) => setEdits({ ...edits, [f.path]: e.target.value })}
                    onKeyDown={(e) => {
                      // Alt+Enter writes a new line in a multi-line value; Enter alone moves on.
                      if (e.key === 'Enter' && e.altKey && e.currentTarget instanceof HTMLTextAreaElement) return;
                      if (e.key === 'Enter' && !e.ctrlKey && !e.metaKey) {
                        e.preventDefault();
                        focusField(e.shiftKey ? i - 1 : i + 1);
                      }
                    }}
                    aria-invalid={fieldErrors[f.path] ? true : undefined}
                    aria-describedby={fieldErrors[f.path] ? `error-${i} why-${i}` : `why-${i}`}
                  />
                  <span className="confidence">{Math.round(f.confidence * 100)}%</span>
                  {fieldErrors[f.path] && <p id={`error-${i}`} className="field-error">{fieldErrors[f.path]!.join(' ')}</p>}
                  <ul id={`why-${i}`} className="reasons">{f.reasons.map((r) => <li key={r}>{r}</li>)}</ul>
                </div>
              ))}
              {open && rows.length > 0 && (
                <ul className="rows" aria-label="Table rows">
                  {rows.map((row) => {
                    const gone = removed.includes(row);
                    return (
                      <li key={row} className={gone ? 'removed' : undefined}>
                        <span>{row}{gone ? ' (removed when saved)' : ''}</span>{' '}
                        <button disabled={!!template.error} onClick={() => setRemoved(gone ? removed.filter((r) => r !== row) : [...removed, row])}>{gone ? `Keep ${row}` : `Remove ${row}`}</button>
                      </li>
                    );
                  })}
                </ul>
              )}
              {open && (
                <div className="review-actions">
                  <label>Note<input value={note} onChange={(e) => setNote(e.target.value)} placeholder="Why (kept with the result)" /></label>
                  <button className="primary" onClick={() => void submit()} disabled={action.busy}>{dirty ? 'Save edits and complete' : 'Approve'} (Ctrl+Enter)</button>
                  <button onClick={() => void reprocess()} disabled={action.busy}>Reprocess</button>
                </div>
              )}
              <p>
                <button onClick={() => void nextReview()}>Next review (Alt+N)</button> <Link to={`/jobs/${job.job_id}`}>Open the job</Link> <span>Job status: <StatusBadge status={job.status} /></span>
              </p>
            </div>
            <div className="page-side" ref={pageSide}>
              {page ? (
                <PageView
                  page={page}
                  artifacts={job.artifacts ?? []}
                  layers={{ blocks: false, tables: false, keyValues: false }}
                  highlights={(current?.evidence ?? []).filter((e) => e.page === page.page_number).map((e) => e.bbox)}
                  onWord={open && current && !template.error ? (w) => setEdits((e) => ({ ...e, [current.path]: e[current.path] && e[current.path] !== display(current.value) ? `${e[current.path]} ${w.text}` : w.text })) : undefined}
                />
              ) : (
                <p className="muted">This job has no page layout to show.</p>
              )}
              {pages.length > 1 && (
                <nav className="pager" aria-label="Pages">
                  {pages.map((p) => (
                    <button
                      key={p.page_number}
                      aria-current={p.page_number === page?.page_number}
                      aria-label={`Page ${p.page_number}`}
                      onClick={() => {
                        setPageNumber(p.page_number);
                        // Back to the field, so Enter and Shift+Enter keep moving between fields.
                        if (open && inputs.current[focused]) {
                          keepPage.current = true;
                          inputs.current[focused]!.focus({ preventScroll: true });
                        }
                      }}
                    >
                      {p.page_number}
                    </button>
                  ))}
                </nav>
              )}
            </div>
          </div>
        )}
      </div>
    </Page>
  );
}
