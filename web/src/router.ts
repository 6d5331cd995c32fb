// A small history router for paths under /app: enough for this console, no dependency.
import { useSyncExternalStore } from 'react';

export const BASE = '/app';
const listeners = new Set<() => void>();
window.addEventListener('popstate', () => listeners.forEach((l) => l()));

function current(): string {
  return window.location.pathname + window.location.search;
}

export function navigate(to: string, replace = false): void {
  const url = to.startsWith(BASE) ? to : BASE + to;
  if (replace) history.replaceState(null, '', url);
  else history.pushState(null, '', url);
  listeners.forEach((l) => l());
}

/** The current path relative to /app (e.g. "/jobs/job_1") and its query. */
export function useLocation(): { path: string; query: URLSearchParams } {
  const href = useSyncExternalStore(
    (l) => {
      listeners.add(l);
      return () => listeners.delete(l);
    },
    current,
  );
  const url = new URL(href, window.location.origin);
  const path = url.pathname.slice(BASE.length) || '/';
  return { path: path === '' ? '/' : path, query: url.searchParams };
}

/** Matches "/jobs/:id" style patterns; returns the parameters or null. */
export function match(pattern: string, path: string): Record<string, string> | null {
  const p = pattern.split('/');
  const a = path.replace(/\/$/, '').split('/');
  if (p.length !== a.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < p.length; i++) {
    if (p[i].startsWith(':')) params[p[i].slice(1)] = decodeURIComponent(a[i]);
    else if (p[i] !== a[i]) return null;
  }
  return params;
}
