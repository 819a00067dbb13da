/**
 * The page script of the oidc-client-ts test, bundled by esbuild (helpers/bundle.ts) and served from
 * the single-page app's own origin: one UserManager, configured from the page's `data-config`, its
 * user kept in localStorage so every page of the app sees it.
 */
import { UserManager, WebStorageStateStore } from 'oidc-client-ts';

const config = JSON.parse(document.documentElement.dataset.config ?? '{}');
const manager = new UserManager({ ...config, userStore: new WebStorageStateStore({ store: localStorage }) });
Object.assign(window, { manager });

const done = (state: string) => {
  document.body.dataset.state = state;
};
if (location.pathname === '/callback')
  manager.signinRedirectCallback().then(
    () => done('signed-in'),
    (err: unknown) => done(`error: ${String(err)}`),
  );
else if (location.pathname === '/silent')
  manager.signinSilentCallback().then(
    () => done('silent'),
    (err: unknown) => done(`error: ${String(err)}`),
  );
else done('ready');
