/**
 * The console's frame: a header with the signed-in person and Sign out, a navigation bar (only the
 * areas the person's scopes can read), and the page of the current route (preact-iso) — under the
 * "Sign in again" dialog of dangerous changes, with the notice of a return from one.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { LocationProvider, Route, Router, useLocation } from 'preact-iso';
import { type Resume, ResumeNotice, StepUpProvider } from './components/step-up.js';
import { SessionContext, useHref } from './context.js';
import { ActivityPage } from './pages/activity.js';
import { ApplicationPage, ApplicationsPage } from './pages/applications.js';
import { KeysPage } from './pages/keys.js';
import { ResourcePage, ResourcesPage } from './pages/resources.js';
import { RolePage, RolesPage } from './pages/roles.js';
import { UserPage, UsersPage } from './pages/users.js';
import { type Area, can, type Session } from './session.js';

const NAV: readonly { path: string; label: string; area: Area }[] = [
  { path: '/activity', label: 'Activity', area: 'audit' },
  { path: '/users', label: 'Users', area: 'users' },
  { path: '/applications', label: 'Applications', area: 'applications' },
  { path: '/resources', label: 'API resources', area: 'resources' },
  { path: '/roles', label: 'Roles', area: 'roles' },
  { path: '/keys', label: 'Signing keys', area: 'keys' },
];

/**
 * After moving to another page, put focus on its content, as a page load would — not on the first page,
 * nor after the redirect from the console's root to its first page.
 */
function FocusOnNavigation({ home }: { readonly home: string }) {
  const { path } = useLocation();
  const previous = useRef<string | undefined>(undefined);
  useEffect(() => {
    const from = previous.current;
    previous.current = path;
    if (from !== undefined && from.replace(/\/+$/, '') !== home) document.getElementById('main')?.focus();
  }, [path, home]);
  return null;
}

function Nav({ session }: { readonly session: Session }) {
  const href = useHref();
  const { path } = useLocation();
  return (
    <nav aria-label="Console">
      <ul>
        {NAV.filter((item) => can(session, item.area)).map((item) => {
          const target = href(item.path);
          const current = path === target || path.startsWith(`${target}/`);
          return (
            <li key={item.path}>
              <a href={target} aria-current={current ? 'page' : undefined}>
                {item.label}
              </a>
            </li>
          );
        })}
      </ul>
    </nav>
  );
}

function Home({ session }: { readonly session: Session }) {
  const { route } = useLocation();
  useEffect(() => {
    const first = NAV.find((item) => can(session, item.area));
    route(`${session.config.basePath}${first?.path ?? '/activity'}`, true);
  }, [session, route]);
  return null;
}

function NotFound() {
  return (
    <section>
      <h1>Not found</h1>
      <p>There is no console page at this address.</p>
    </section>
  );
}

/** The signed-in console; `resume` is how a step-up sign-in ended, when the page comes back from one. */
export function App({
  session,
  resume,
}: {
  readonly session: Session;
  readonly resume?: Resume | undefined;
}) {
  const base = session.config.basePath;
  const readOnly = !NAV.some((item) => can(session, item.area, true));
  // Bumped when a change made from the notice succeeded: the page remounts and reads its data again.
  const [version, setVersion] = useState(0);
  return (
    <SessionContext.Provider value={session}>
      <StepUpProvider>
        <LocationProvider scope={base}>
          <a class="skip" href="#main">
            Skip to content
          </a>
          <header class="top">
            <p class="brand">Gatehouse console</p>
            <div class="account">
              <span id="who">
                {session.name}
                {readOnly ? ' (read-only)' : ''}
              </span>
              <button
                type="button"
                class="secondary"
                id="sign-out"
                onClick={() => void session.client.signOut()}
              >
                Sign out
              </button>
            </div>
          </header>
          <FocusOnNavigation home={base} />
          <Nav session={session} />
          <main id="main" tabIndex={-1}>
            {resume === undefined ? null : (
              <ResumeNotice resume={resume} onDone={() => setVersion((v) => v + 1)} />
            )}
            <Router key={version}>
              <Route path={`${base}/`} component={() => <Home session={session} />} />
              <Route path={`${base}/activity`} component={ActivityPage} />
              <Route
                path={`${base}/activity/administration`}
                component={() => <ActivityPage view="administration" />}
              />
              <Route path={`${base}/activity/sign-in`} component={() => <ActivityPage view="sign-in" />} />
              <Route path={`${base}/users`} component={UsersPage} />
              <Route path={`${base}/users/:id`} component={UserPage} />
              <Route path={`${base}/applications`} component={ApplicationsPage} />
              <Route path={`${base}/applications/:id`} component={ApplicationPage} />
              <Route path={`${base}/resources`} component={ResourcesPage} />
              <Route path={`${base}/resources/:id`} component={ResourcePage} />
              <Route path={`${base}/roles`} component={RolesPage} />
              <Route path={`${base}/roles/:id`} component={RolePage} />
              <Route path={`${base}/keys`} component={KeysPage} />
              <Route default component={NotFound} />
            </Router>
          </main>
        </LocationProvider>
      </StepUpProvider>
    </SessionContext.Provider>
  );
}
