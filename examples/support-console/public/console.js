// The support console page: sign in with @gatehouse/client (authorization code + PKCE), then act as a
// customer through the integrator's backend. Configuration comes from /config.json.
import { createClient } from '/gatehouse-client.js';
import { impersonate } from '/impersonate.js';

const $ = (id) => document.getElementById(id);
const config = await (await fetch('/config.json')).json();
const client = createClient({ ...config.client, storage: 'sessionStorage' });
const name = (id) => (config.directory?.[id] ? `${config.directory[id]} (${id})` : id);

function show(signedIn, text) {
  $('status').textContent = text;
  $('status').dataset.state = signedIn ? 'signed-in' : 'signed-out';
  $('sign-in').hidden = signedIn;
  $('sign-out').hidden = !signedIn;
  $('impersonate').hidden = !signedIn;
}

function step(kind, text, ok) {
  const item = document.createElement('li');
  item.dataset.step = kind;
  item.dataset.ok = String(ok);
  item.textContent = text;
  $('steps').append(item);
}

$('sign-in').onclick = () => client.signIn();
$('sign-out').onclick = () => client.signOut();
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

try {
  if (location.pathname === '/callback') {
    await client.handleSignInCallback();
    history.replaceState(null, '', '/');
  }
  const claims = (await client.isAuthenticated()) ? await client.getIdTokenClaims() : undefined;
  show(claims !== undefined, claims ? `Signed in as ${name(claims.sub)}` : 'Not signed in');
} catch (err) {
  show(false, `Sign-in failed: ${err.reason ?? ''} ${err.error ?? err.message}`);
}
