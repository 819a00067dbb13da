/**
 * Entry point: finish a sign-in coming back from the issuer (`/console/callback`), then show the
 * console to an administrator, a refusal to anyone else, and a Sign in button to a stranger. A sign-in
 * made again for a dangerous change (see `components/step-up.tsx`) comes back to the page it started
 * on, with the change offered again.
 */
import { isClientError } from '@gatehouse/client';
import { render, type VNode } from 'preact';
import { call } from './api.js';
import { App } from './app.js';
import type { Resume } from './components/step-up.js';
import { type PendingChange, takePending } from './pending.js';
import { can, isAdministrator, loadClient, type Session, tokenScopes } from './session.js';

const root = document.getElementById('app')!;

/** Show one screen (the first replaces the static "Loading…"). */
function show(screen: VNode): void {
  root.replaceChildren();
  render(screen, root);
}

function Message(props: {
  readonly title: string;
  readonly text: string;
  readonly action: string;
  readonly onClick: () => void;
  readonly state: string;
}) {
  return (
    <main class="gate" id="main" data-state={props.state}>
      <h1>{props.title}</h1>
      <p>{props.text}</p>
      <button
        type="button"
        id={props.state === 'signed-out' ? 'sign-in' : 'sign-out'}
        onClick={props.onClick}
      >
        {props.action}
      </button>
    </main>
  );
}

function describe(err: unknown): string {
  if (isClientError(err)) {
    if (err.error === 'access_denied') return 'The sign-in was cancelled.';
    return `Signing in failed: ${err.message}`;
  }
  return `Signing in failed: ${(err as Error)?.message ?? err}`;
}

async function start(): Promise<void> {
  const { config, client } = await loadClient();
  let notice: string | undefined;
  // Taken at every start: a step-up sign-in abandoned (Back to the console) leaves nothing behind.
  const kept = takePending(sessionStorage, config.basePath, Date.now());
  let pending: PendingChange | undefined;
  if (location.pathname === `${config.basePath}/callback`) {
    pending = kept;
    try {
      await client.handleSignInCallback();
    } catch (err) {
      notice = describe(err);
    } finally {
      // No code or error left in the address bar; back where a step-up sign-in started.
      history.replaceState(null, '', pending?.returnTo ?? `${config.basePath}/`);
    }
  }
  const claims = (await client.isAuthenticated()) ? await client.getIdTokenClaims() : undefined;
  if (claims === undefined) {
    show(
      <Message
        state="signed-out"
        title="Gatehouse console"
        text={notice ?? 'Sign in with an administrator account to manage this issuer.'}
        action="Sign in"
        onClick={() => void client.signIn()}
      />,
    );
    return;
  }
  let scopes = new Set<string>();
  try {
    scopes = tokenScopes(await client.getAccessToken(config.managementApi));
  } catch (err) {
    // An issuer may refuse a token instead of issuing one without scopes: that is a refusal too.
    if (!isClientError(err) || !['invalid_scope', 'invalid_target'].includes(err.error)) throw err;
  }
  const name = String(claims.preferred_username ?? claims.sub);
  if (!isAdministrator(scopes)) {
    show(
      <Message
        state="refused"
        title="Not an administrator"
        text={`You are signed in as ${name}, and none of your roles lets you manage this issuer. Ask an administrator for the "Gatehouse console administrator" or "Gatehouse console viewer" role.`}
        action="Sign out"
        onClick={() => void client.signOut()}
      />,
    );
    return;
  }
  const acr = typeof claims.acr === 'string' ? claims.acr : undefined;
  const base: Session = { config, client, userId: claims.sub, name, scopes, acr };
  // The ID token names the user by id only; the Management API knows the username.
  const user = can(base, 'users')
    ? await call<{ username: string }>(base, 'GET', `/users/${encodeURIComponent(claims.sub)}`).catch(
        () => undefined,
      )
    : undefined;
  const session: Session = { ...base, name: user?.username ?? name };
  const resume: Resume | undefined =
    pending === undefined
      ? undefined
      : notice !== undefined
        ? { outcome: 'failed', pending, message: notice.replace(/\.$/, '') }
        : pending.userId !== claims.sub
          ? { outcome: 'other-user', pending, name: session.name }
          : { outcome: 'signed-in', pending };
  show(<App session={session} resume={resume} />);
}

start().catch((err: unknown) => {
  show(
    <main class="gate" id="main" data-state="error">
      <h1>Gatehouse console</h1>
      <p class="error" role="alert">
        The console could not start: {(err as Error)?.message ?? String(err)}
      </p>
    </main>,
  );
});
