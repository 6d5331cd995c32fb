// The console's shell: sign-in gate, navigation, tenant switch for a platform admin, and routes.
import { StrictMode, useEffect, useSyncExternalStore } from 'react';
import { createRoot } from 'react-dom/client';
import { api, must } from './api/client';
import { Link, Message, NotPermitted, RoleContext, UserContext, useLoad } from './components/ui';
import { match, navigate, useLocation } from './router';
import { session } from './session';
import { ApiKeys, Audit, Integrations, Sessions, Users } from './screens/Admin';
import { RedeemToken, SignIn } from './screens/Auth';
import { BatchDetail, BatchList } from './screens/Batches';
import { Documents } from './screens/Documents';
import { JobDetail } from './screens/JobDetail';
import { Policy } from './screens/Policy';
import { ReviewQueue, ReviewScreen } from './screens/Reviews';
import { TemplateEditor, TemplateList } from './screens/Templates';
import './styles.css';

function TenantSwitch({ home }: { home: string }) {
  const tenants = useLoad(async () => must(await api.GET('/v1/platform/tenants', { params: { query: { limit: 200 } } })).items, []);
  const { tenant } = session.get();
  return (
    <label className="tenant-switch">
      Tenant
      <select value={tenant ?? home} onChange={(e) => { session.setTenant(e.target.value === home ? null : e.target.value); navigate('/'); }}>
        {(tenants.data ?? [{ id: home, name: home }]).map((t) => <option key={t.id} value={t.id}>{t.name} ({t.id})</option>)}
      </select>
    </label>
  );
}

const NAV: { to: string; label: string; admin?: boolean }[] = [
  { to: '/', label: 'Documents' },
  { to: '/batches', label: 'Batches' },
  { to: '/reviews', label: 'Reviews' },
  { to: '/templates', label: 'Templates' },
  { to: '/admin/users', label: 'Users', admin: true },
  { to: '/admin/keys', label: 'API keys', admin: true },
  { to: '/admin/policy', label: 'Policy', admin: true },
  { to: '/admin/integrations', label: 'Connections', admin: true },
  { to: '/admin/audit', label: 'Audit log', admin: true },
  { to: '/sessions', label: 'Sessions' },
];

function Screen({ path: raw, tenantId, isAdmin, isPlatformAdmin }: { path: string; tenantId: string; isAdmin: boolean; isPlatformAdmin: boolean }) {
  let m: Record<string, string> | null;
  // "/templates/" is "/templates": a trailing slash names the same screen.
  const path = raw.length > 1 ? raw.replace(/\/+$/, '') : raw;
  if (path === '/') return <Documents />;
  if ((m = match('/jobs/:id', path))) return <JobDetail key={m.id} jobId={m.id} />;
  if (path === '/batches') return <BatchList />;
  if ((m = match('/batches/:id', path))) return <BatchDetail key={m.id} batchId={m.id} />;
  if (path === '/reviews') return <ReviewQueue />;
  if ((m = match('/reviews/:id', path))) return <ReviewScreen key={m.id} reviewId={m.id} />;
  if (path === '/templates') return <TemplateList />;
  if (path === '/templates/new') return isAdmin ? <TemplateEditor key="new" templateId={null} /> : <NotPermitted what="Creating a template" />;
  if ((m = match('/templates/:id', path))) return <TemplateEditor key={m.id} templateId={m.id} />;
  const admin = NAV.find((n) => n.admin && n.to === path);
  if (admin && !isAdmin) return <NotPermitted what={`The ${admin.label} screen`} />;
  if (path === '/admin/users') return <Users />;
  if (path === '/admin/keys') return <ApiKeys />;
  if (path === '/admin/policy') return <Policy key={tenantId} tenantId={tenantId} isPlatformAdmin={isPlatformAdmin} />;
  if (path === '/admin/integrations') return <Integrations />;
  if (path === '/admin/audit') return <Audit />;
  if (path === '/sessions') return <Sessions />;
  return <p role="alert">There is no screen at {raw}. <Link to="/">Go to documents</Link>.</p>;
}

function Shell({ path }: { path: string }) {
  const { tenant } = useSyncExternalStore(session.subscribe, session.get);
  const me = useLoad(async () => must(await api.GET('/v1/me')), [tenant]);
  const role = me.data?.role;
  useEffect(() => {
    if (role) session.resumeTenant(role === 'platform_admin');
  }, [role]);
  if (me.error) return <main className="auth"><Message error={me.error} /><button onClick={() => session.clear()}>Sign in again</button></main>;
  if (!me.data) return <main className="auth"><p role="status">Loading…</p></main>;
  const isAdmin = me.data.role !== 'member';
  const signOut = async () => {
    await api.POST('/v1/auth/logout');
    session.clear();
    navigate('/signin', true);
  };
  return (
    <div className="shell">
      <a href="#main" className="skip">Skip to content</a>
      <nav className="sidebar" aria-label="Main">
        <p className="brand">Quire</p>
        <ul>
          {NAV.filter((n) => !n.admin || isAdmin).map((n) => (
            <li key={n.to}><Link to={n.to} aria-current={(n.to === '/' ? path === '/' || path.startsWith('/jobs') : path.startsWith(n.to)) ? 'page' : undefined}>{n.label}</Link></li>
          ))}
        </ul>
        <div className="whoami">
          {me.data.role === 'platform_admin' && <TenantSwitch home={me.data.home_tenant_id} />}
          <p>{me.data.user?.email}<br /><small>{me.data.role} · {me.data.tenant.name}</small></p>
          <button onClick={() => void signOut()}>Sign out</button>
        </div>
      </nav>
      <main id="main" tabIndex={-1}>
        {/* Keyed by tenant: a switch starts every screen afresh (its lists, its template choices). */}
        <RoleContext.Provider value={me.data.role}>
          <UserContext.Provider value={me.data.user ? { id: me.data.user.id, email: me.data.user.email } : null}>
            <Screen key={me.data.acting_tenant_id} path={path} tenantId={me.data.acting_tenant_id} isAdmin={isAdmin} isPlatformAdmin={me.data.role === 'platform_admin'} />
          </UserContext.Provider>
        </RoleContext.Provider>
      </main>
    </div>
  );
}

function App() {
  const { token } = useSyncExternalStore(session.subscribe, session.get);
  const { path } = useLocation();
  if (path === '/accept-invite') return <RedeemToken kind="invite" />;
  if (path === '/reset-password') return <RedeemToken kind="reset" />;
  if (!token) return <SignIn />;
  if (path === '/signin') {
    navigate('/', true);
    return null;
  }
  return <Shell path={path} />;
}

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
