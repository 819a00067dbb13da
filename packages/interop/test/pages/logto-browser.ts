/**
 * The page script of the @logto/browser test, bundled by esbuild (helpers/bundle.ts) and served from
 * the single-page app's own origin: one LogtoClient, configured from the page's `data-config`.
 */
import LogtoClient from '@logto/browser';

const config = JSON.parse(document.documentElement.dataset.config ?? '{}');
const logto = new LogtoClient(config);
Object.assign(window, { logto });

if (location.pathname === '/callback') {
  logto.handleSignInCallback(location.href).then(
    () => {
      document.body.dataset.state = 'signed-in';
    },
    (err: unknown) => {
      document.body.dataset.state = `error: ${String(err)}`;
    },
  );
} else document.body.dataset.state = 'ready';
