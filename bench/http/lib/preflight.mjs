/**
 * The check every server under test passes before it is loaded: the token gets 200 with the right `sub`;
 * a guarded configuration also answers a token with a flipped signature bit with 401 and a token
 * without the route's scope with 403. Shared by run.mjs and the interleaved benchmarks (interleave.mjs).
 */
import { SCOPE, SUBJECT } from './issuer.mjs';

/**
 * @param {string} url the route (`GET /orders`)
 * @param {boolean} guarded whether the configuration checks tokens (everything but the bare framework)
 * @param {{ good: string, tampered: string, noScope: string }} tokens
 * @returns {Promise<string | undefined>} what is wrong, or undefined
 */
export async function preflight(url, guarded, tokens) {
  const get = (token) => fetch(url, { headers: { authorization: `Bearer ${token}` } });
  const ok = await get(tokens.good);
  const body = await ok.json().catch(() => undefined);
  if (ok.status !== 200 || body?.ok !== true || body?.sub !== SUBJECT) {
    return `valid token: HTTP ${ok.status} ${JSON.stringify(body)}`;
  }
  if (!guarded) return undefined;
  const tampered = await get(tokens.tampered);
  await tampered.arrayBuffer();
  if (tampered.status !== 401) return `tampered token: HTTP ${tampered.status}, expected 401`;
  const noScope = await get(tokens.noScope);
  await noScope.arrayBuffer();
  if (noScope.status !== 403) return `token without ${SCOPE}: HTTP ${noScope.status}, expected 403`;
  return undefined;
}
