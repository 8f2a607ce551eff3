// The signed-in frame: skip link, navigation, the "acting as" switch, sign-out.
import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { NavLink, Outlet, useLocation, useNavigate } from 'react-router';
import { activeOrganization, api, setActiveOrganization, setCsrfToken } from '../api/client';
import { useSession } from '../api/session';
import { useDemo } from '../pages/DemoPage';
import { Options } from './Field';

export function Layout() {
  const session = useSession().data;
  // Only the sandbox of `npm run demo` answers the demo's routes; elsewhere no link is shown.
  const demo = useDemo().data;
  const qc = useQueryClient();
  const navigate = useNavigate();
  const location = useLocation();
  const main = useRef<HTMLElement>(null);
  // On a phone the navigation folds behind a Menu button; a new page folds it again.
  const [menuOpen, setMenuOpen] = useState(false);
  // A new page moves focus to its content, as a full page load would for screen readers.
  useEffect(() => {
    setMenuOpen(false);
    main.current?.focus();
  }, [location.pathname]);
  if (!session) return null;
  const orgs = session.organizations;

  async function signOut() {
    await api.POST('/api/auth/logout');
    setCsrfToken(undefined);
    qc.clear();
    navigate('/signin');
  }

  return (
    <>
      <a className="skip" href="#main">
        Skip to content
      </a>
      <header className="top">
        <a href="/" className="brand" aria-label="Berth, deployments">
          ⚓ Berth
        </a>
        <button
          type="button"
          className="secondary menu-button"
          aria-expanded={menuOpen}
          aria-controls="main-nav account-bar"
          onClick={() => setMenuOpen((o) => !o)}
        >
          Menu
        </button>
        <nav aria-label="Main" id="main-nav" className={menuOpen ? 'open' : undefined}>
          <ul>
            <li>
              <NavLink to="/" end>
                Deployments
              </NavLink>
            </li>
            <li>
              <NavLink to="/keys">API keys</NavLink>
            </li>
            <li>
              <NavLink to="/organizations">Organizations</NavLink>
            </li>
            <li>
              <NavLink to="/account">Account</NavLink>
            </li>
            {demo && (
              <li>
                <NavLink to="/demo">Telegram demo</NavLink>
              </li>
            )}
          </ul>
        </nav>
        <div className={menuOpen ? 'account open' : 'account'} id="account-bar">
          {orgs.length > 0 && (
            <label className="inline">
              <span>Acting as</span>
              <select
                value={activeOrganization() ?? ''}
                onChange={(e) => {
                  setActiveOrganization(e.target.value || undefined);
                  qc.invalidateQueries({ predicate: (q) => q.queryKey[0] !== 'session' });
                  navigate('/');
                }}
              >
                <option value="">Personal ({session.user.email})</option>
                <Options items={orgs} value={(o) => o.id} label={(o) => o.name} />
              </select>
            </label>
          )}
          {orgs.length === 0 && <span className="muted small">{session.user.email}</span>}
          <button type="button" className="secondary" onClick={signOut}>
            Sign out
          </button>
        </div>
      </header>
      <main id="main" ref={main} tabIndex={-1}>
        <Outlet />
      </main>
    </>
  );
}
