import { useSyncExternalStore } from 'react';
import { Navigate, NavLink, Outlet, useLocation } from 'react-router';
import { auth } from '../api/auth-store';
import { signOut } from '../auth/sign-in-actions';
import { NAV_ITEMS } from './nav-items';
import { CommandPalette } from './command-palette';

/** The signed-in frame: navigation, the command palette (Ctrl/Cmd+K), sign-out. */
export function Layout() {
  const state = useSyncExternalStore(auth.subscribe, auth.get);
  const location = useLocation();
  if (state.status !== 'signed-in') {
    return <Navigate to="/login" replace state={{ from: location.pathname + location.search }} />;
  }
  return (
    <div className="frame">
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="top">
        <span className="brand">Certlane</span>
        <CommandPalette />
        <span className="who" data-testid="actor">
          {state.actorId}
        </span>
        {state.method !== 'open' && (
          <button type="button" onClick={() => void signOut()}>
            Sign out
          </button>
        )}
      </header>
      <nav aria-label="Main" className="side">
        <ul>
          {NAV_ITEMS.filter((item) => item.group === 'main').map((item) => (
            <li key={item.to}>
              <NavLink to={item.to} end>
                {item.label}
              </NavLink>
            </li>
          ))}
        </ul>
        <h2 className="nav-heading" id="nav-admin">
          Administration
        </h2>
        <ul aria-labelledby="nav-admin">
          {NAV_ITEMS.filter((item) => item.group === 'admin').map((item) => (
            <li key={item.to}>
              <NavLink to={item.to} end>
                {item.label}
              </NavLink>
            </li>
          ))}
        </ul>
      </nav>
      <main id="main" className="content" tabIndex={-1}>
        <Outlet />
      </main>
    </div>
  );
}
