// The support console page: sign in with @gatehouse/client (authorization code + PKCE), then act as a
// customer through the integrator's backend. Configuration comes from /config.json.
//
// Who sees the impersonation form: users whose access token for the support backend carries the scope
// the backend requires (config.impersonation.scope, `impersonate:users`, granted by a role such as the
// demo's support-engineer). The page only hides what would be refused: the backend checks the scope
// itself on every request.
import { createClient } from '/gatehouse-client.js';
import { impersonate, readClaims } from '/impersonate.js';
import { describeError, hasScope } from '/messages.js';

const $ = (id) => document.getElementById(id);
const config = await (await fetch('/config.json')).json();
const client = createClient({ ...config.client, storage: 'sessionStorage' });
const name = (id) => (config.directory?.[id] ? `${config.directory[id]} (${id})` : id);

function show(signedIn, text) {
  $('status').textContent = text;
  $('sign-in').hidden = signedIn;
  $('sign-out').hidden = !signedIn;
  $('status').dataset.state = signedIn ? 'signed-in' : 'signed-out';
}

function notice(text) {
  $('notice').textContent = text;
  $('notice').hidden = text === '';
}

function step(kind, text, ok) {
  const item = document.createElement('li');
  item.dataset.step = kind;
  item.dataset.ok = String(ok);
  item.textContent = text;
  $('steps').append(item);
}

/** Whether the signed-in user's token for the backend carries the impersonation scope. */
async function mayImpersonate() {
  try {
    return hasScope(
      readClaims(await client.getAccessToken(config.backend.resource)),
      config.impersonation.scope,
    );
  } catch (err) {
    // Gatehouse issues a token without scopes to a user none of whose roles grant one; an issuer may
    // refuse such a token instead.
    if (err.error === 'invalid_scope' || err.error === 'invalid_target') return false;
    throw err;
  }
}

$('sign-in').onclick = () => {
  notice('');
  client.signIn();
};
$('sign-out').onclick = () => client.signOut();
$('needed-scope').textContent = config.impersonation.scope;
$('user-id').value = config.defaults?.userId ?? '';
$('reason').value = config.defaults?.reason ?? '';
$('ticket-id').value = config.defaults?.ticketId ?? '';

$('impersonate').onsubmit = async (event) => {
  event.preventDefault();
  $('steps').replaceChildren();
  const request = { userId: $('user-id').value, reason: $('reason').value, ticketId: $('ticket-id').value };
  try {
    await impersonate({
      client,
      backend: config.backend,
      orders: config.orders,
      request,
      onStep(kind, d) {
        if (kind === 'backend')
          step(kind, `Backend minted a subject token (single use, expires in ${d.expiresIn} s)`, true);
        if (kind === 'exchange')
          step(
            kind,
            `Exchanged it: sub = ${name(d.sub)}, act.sub = ${name(d.act?.sub)}, scope "${d.scope}"`,
            true,
          );
        if (kind === 'orders')
          step(kind, `GET /orders → ${d.status} ${JSON.stringify(d.body)}`, d.status === 200);
      },
    });
  } catch (err) {
    step(err.step ?? 'error', `${err.step ?? 'error'} refused (${err.status ?? '?'}): ${err.message}`, false);
  }
};

let claims;
try {
  if (location.pathname === '/callback') {
    try {
      await client.handleSignInCallback();
    } finally {
      history.replaceState(null, '', '/'); // no code or error left in the address bar
    }
  }
  claims = (await client.isAuthenticated()) ? await client.getIdTokenClaims() : undefined;
} catch (err) {
  notice(describeError(err));
}
if (claims === undefined) {
  show(false, 'Not signed in');
} else {
  try {
    const allowed = await mayImpersonate();
    $('impersonate').hidden = !allowed;
    $('not-allowed').hidden = allowed;
  } catch (err) {
    notice(describeError(err));
  }
  show(true, `Signed in as ${name(claims.sub)}`);
}
