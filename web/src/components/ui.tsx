// Small shared pieces: links that use the router, loading with polling, messages, badges.
import { type AnchorHTMLAttributes, type ReactNode, createContext, useCallback, useContext, useEffect, useRef, useState } from 'react';
import { BASE, navigate } from '../router';
import { ApiError } from '../api/client';

export function Link({ to, children, ...rest }: { to: string; children: ReactNode } & AnchorHTMLAttributes<HTMLAnchorElement>) {
  return (
    <a
      href={BASE + to}
      onClick={(e) => {
        if (e.metaKey || e.ctrlKey || e.shiftKey || e.button !== 0) return;
        e.preventDefault();
        navigate(to);
      }}
      {...rest}
    >
      {children}
    </a>
  );
}

export interface Loaded<T> {
  data: T | undefined;
  error: string | null;
  loading: boolean;
  reload: () => Promise<void>;
}

/**
 * Runs `load` now and whenever `deps` change; with `pollMs`, again on that interval while the
 * tab is visible (live lists). Errors become a sentence for the screen.
 */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[], pollMs?: number | false): Loaded<T> {
  const [data, setData] = useState<T>();
  const [error, setError] = useState<string | null>(null);
  const [loading, setLoading] = useState(true);
  const latest = useRef(load);
  latest.current = load;
  // Each load is numbered; only the newest one's answer is shown, so a slow answer to an older
  // search (or an older page) never overwrites the newer one.
  const sequence = useRef(0);
  // A 404 does not come back by asking again: polling stops until the deps change.
  const gone = useRef(false);
  const reload = useCallback(async () => {
    const mine = ++sequence.current;
    try {
      const value = await latest.current();
      if (mine !== sequence.current) return;
      gone.current = false;
      setData(value);
      setError(null);
    } catch (err) {
      if (mine !== sequence.current) return;
      gone.current = err instanceof ApiError && err.status === 404;
      setError((err as Error).message);
    } finally {
      if (mine === sequence.current) setLoading(false);
    }
  }, []);
  useEffect(() => {
    setLoading(true);
    gone.current = false;
    void reload();
    if (!pollMs) return;
    const timer = setInterval(() => document.visibilityState === 'visible' && !gone.current && void reload(), pollMs);
    return () => clearInterval(timer);
  }, [...deps, pollMs]);
  return { data, error, loading, reload };
}

/** Runs an action, keeping its error and busy state for the button that started it. */
export function useAction() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const run = useCallback(async (action: () => Promise<unknown>, done?: string) => {
    setBusy(true);
    setError(null);
    setNotice(null);
    try {
      await action();
      if (done) setNotice(done);
      return true;
    } catch (err) {
      setError((err as Error).message);
      return false;
    } finally {
      setBusy(false);
    }
  }, []);
  return { busy, error, notice, run, setError };
}

export function Message({ error, notice }: { error?: string | null; notice?: string | null }) {
  if (error) return <p className="message error" role="alert">{error}</p>;
  if (notice) return <p className="message notice" role="status">{notice}</p>;
  return null;
}

export function StatusBadge({ status }: { status: string }) {
  return <span className={`badge badge-${status}`}>{status.replace(/_/g, ' ')}</span>;
}

export function When({ at }: { at: string | null | undefined }) {
  if (!at) return <span className="muted">—</span>;
  const d = new Date(at);
  return <time dateTime={at} title={at}>{d.toLocaleString()}</time>;
}

export function Page({ title, actions, children }: { title: string; actions?: ReactNode; children: ReactNode }) {
  useEffect(() => {
    document.title = `${title} · Quire`;
  }, [title]);
  return (
    <section className="page" aria-labelledby="page-title">
      <header className="page-header">
        <h1 id="page-title">{title}</h1>
        {actions && <div className="page-actions">{actions}</div>}
      </header>
      {children}
    </section>
  );
}

/** A 501 from an operation this installation does not offer reads as that, not as a failure. */
export function unavailable(error: string | null): boolean {
  return !!error && /not (available|implemented)|not offered|501/i.test(error);
}

/**
 * Cursor paging over a list the API answers page by page (`next_cursor`): the cursors of the pages
 * before the one shown, so Newer and Newest go back; `reset` when a filter changes.
 */
export function useCursors() {
  const [cursors, setCursors] = useState<string[]>([]);
  return { cursor: cursors[cursors.length - 1] as string | undefined, cursors, setCursors, reset: () => setCursors([]) };
}

/** Newest, Newer and Older for a list paged with useCursors. */
export function Pager({ label, paging, next }: { label: string; paging: ReturnType<typeof useCursors>; next: string | null | undefined }) {
  const { cursors, setCursors } = paging;
  return (
    <div className="row pager" role="group" aria-label={label}>
      {cursors.length > 0 && <button type="button" onClick={() => setCursors([])}>Newest</button>}
      {cursors.length > 0 && <button type="button" onClick={() => setCursors(cursors.slice(0, -1))}>Newer</button>}
      {next && <button type="button" onClick={() => setCursors([...cursors, next])}>Older</button>}
    </div>
  );
}

/** The signed-in person (from /v1/me), or null for an API key: screens name their own actions "you". */
export const UserContext = createContext<{ id: string; email: string } | null>(null);

/** The signed-in person's role in the acting tenant ('member', 'admin', 'platform_admin'), from /v1/me. */
export const RoleContext = createContext<string>('member');

/** Whether the person may use the admin operations (the API answers 403 to a member). */
export function useIsAdmin(): boolean {
  return useContext(RoleContext) !== 'member';
}

/** The screen a member reaches by URL where only admins may go: said plainly, instead of a row of 403s. */
export function NotPermitted({ what }: { what: string }) {
  return (
    <Page title="Not permitted">
      <p role="alert" className="message error">{what} is for tenant admins. Ask an admin of this tenant if you need it.</p>
      <p><Link to="/">Go to documents</Link></p>
    </Page>
  );
}
