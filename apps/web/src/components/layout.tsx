import { useState, useSyncExternalStore } from 'react';
import { Navigate, NavLink, Outlet, useLocation } from 'react-router';
import { auth } from '../api/auth-store';
import { signOut } from '../auth/sign-in-actions';
import { NAV_ITEMS } from './nav-items';
import { CommandPalette } from './command-palette';
import { NotificationBell } from './notification-bell';
import { VersionLine } from './version-line';
import { NAV_GROUPS, NavGroup } from '../pages/resource-pages';

/** The signed-in frame: navigation, the command palette (Ctrl/Cmd+K), sign-out, the running version. */
export function Layout() {
  const state = useSyncExternalStore(auth.subscribe, auth.get);
  const location = useLocation();
  const [signOutError, setSignOutError] = useState<string>();
  const [signingOut, setSigningOut] = useState(false);
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
        <NotificationBell />
        <span className="who" data-testid="actor">
          {state.actorId}
        </span>
        {state.method !== 'open' && (
          <button
            type="button"
            disabled={signingOut}
            onClick={() => {
              setSigningOut(true);
              setSignOutError(undefined);
              signOut()
                .catch((error: unknown) =>
                  setSignOutError(error instanceof Error ? error.message : 'Sign-out failed.'),
                )
                .finally(() => setSigningOut(false));
            }}
          >
            Sign out
          </button>
        )}
      </header>
      <nav aria-label="Main" className="side">
        {(Object.entries(NAV_GROUPS) as [NavGroup, string][]).map(([group, heading]) => (
          <NavSection key={group} group={group} heading={heading} />
        ))}
      </nav>
      <main id="main" className="content" tabIndex={-1}>
        {signOutError && (
          <p role="alert" className="notice error">
            {signOutError}
          </p>
        )}
        <Outlet />
      </main>
      <footer className="about">
        <VersionLine />
      </footer>
    </div>
  );
}

/** One group of the navigation: the first without a heading, the others under theirs. */
function NavSection({ group, heading }: { group: NavGroup; heading: string }) {
  const items = NAV_ITEMS.filter((item) => item.group === group);
  const headingId = `nav-${group}`;
  const list = (
    <ul aria-labelledby={group === 'main' ? undefined : headingId}>
      {items.map((item) => (
        <li key={item.to}>
          <NavLink to={item.to} end>
            {item.label}
          </NavLink>
        </li>
      ))}
    </ul>
  );
  if (group === 'main') return list;
  return (
    <>
      <h2 className="nav-heading" id={headingId}>
        {heading}
      </h2>
      {list}
    </>
  );
}
