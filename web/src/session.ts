// The signed-in session, kept in localStorage so a reload stays signed in; subscribers re-render.
export interface SessionState {
  token: string | null;
  /** X-Tenant-Id a platform admin acts in (null: their own tenant). */
  tenant: string | null;
  /** Set when the API refused the session (expired, revoked): the sign-in screen says so. */
  ended?: boolean;
  /**
   * The tenant a platform admin was acting in when the API ended the session: signed in again,
   * the same person is back in it (for anyone else it is dropped once /v1/me says who signed in).
   */
  resume?: string | null;
}

const KEY = 'quire.session';
/** sessionStorage prefix of a review's unsaved edits (Reviews.tsx), kept through an ended session. */
export const REVIEW_DRAFT = 'quire.review-draft.';

/** Signing out drops the unsaved review edits kept in this tab: the next person does not find them. */
function dropDrafts(): void {
  try {
    for (const key of Object.keys(sessionStorage)) if (key.startsWith(REVIEW_DRAFT)) sessionStorage.removeItem(key);
  } catch {
    /* storage unavailable: nothing kept */
  }
}
const listeners = new Set<() => void>();

function read(): SessionState {
  try {
    const raw = localStorage.getItem(KEY);
    if (raw) return JSON.parse(raw) as SessionState;
  } catch {
    /* storage unavailable or corrupt: start signed out */
  }
  return { token: null, tenant: null };
}

let state = read();

function write(next: SessionState): void {
  state = next;
  try {
    localStorage.setItem(KEY, JSON.stringify(next));
  } catch {
    /* private mode: the session lives for this page only */
  }
  for (const l of listeners) l();
}

export const session = {
  get: () => state,
  signIn: (token: string) => write({ token, tenant: null, resume: state.resume ?? null }),
  /** Called once /v1/me answers: a platform admin gets back the tenant the ended session acted in. */
  resumeTenant: (platformAdmin: boolean) => {
    if (state.resume === undefined || state.resume === null) return;
    write({ token: state.token, tenant: platformAdmin ? state.resume : state.tenant, resume: null });
  },
  setTenant: (tenant: string | null) => write({ ...state, tenant }),
  clear: () => {
    dropDrafts();
    if (state.token) write({ token: null, tenant: null });
  },
  /** The API no longer accepts the token: signed out, with a word why on the sign-in screen. */
  end: () => {
    if (state.token) write({ token: null, tenant: null, ended: true, resume: state.tenant });
  },
  subscribe(listener: () => void): () => void {
    listeners.add(listener);
    return () => listeners.delete(listener);
  },
};
