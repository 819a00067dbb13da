/**
 * The sign-in form over HTTP for the protection tests: open one interaction (its cookie and CSRF
 * token) and post any number of attempts to it, as a script guessing passwords would.
 */
import { Agent, type AgentResponse, authorizeUrl, hiddenField, pkce } from './agent.js';
import { REDIRECT } from './fixtures.js';

/** An open sign-in form. */
export interface SignInForm {
  readonly agent: Agent;
  /** Post one attempt (extra headers, e.g. `X-Forwarded-For`). */
  attempt(identifier: string, password: string, headers?: Record<string, string>): Promise<AgentResponse>;
}

/** Open the sign-in page of `web-app` (seeded by `loadWorld`) at `baseUrl`. */
export async function openSignInForm(baseUrl: string): Promise<SignInForm> {
  const agent = new Agent();
  const page = await agent.follow(
    await agent.get(
      authorizeUrl({
        baseUrl,
        clientId: 'web-app',
        redirectUri: REDIRECT,
        scope: 'openid',
        codeChallenge: pkce().challenge,
      }),
    ),
    REDIRECT,
  );
  if (page.status !== 200) throw new Error(`no sign-in page: ${page.status}`);
  const action = new URL(/<form method="post" action="([^"]+)"/.exec(page.text)![1]!, baseUrl).href;
  const csrf = hiddenField(page.text, 'csrf');
  return {
    agent,
    attempt: (identifier, password, headers = {}) =>
      agent.post(action, { csrf, identifier, password }, headers),
  };
}

/** The message of a rendered sign-in page (its `role=alert` element), unescaped enough to compare. */
export function alertOf(res: AgentResponse): string | undefined {
  return /role="alert"[^>]*>([^<]*)</.exec(res.text)?.[1];
}
