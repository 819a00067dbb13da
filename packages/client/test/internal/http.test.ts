/**
 * Request options (plain-HTTP policy per target, custom fetch, timeout) and the mapping of
 * oauth4webapi and network failures to the client's errors, on real responses and a real socket.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as oauth from 'oauth4webapi';
import { describe, expect, it, vi } from 'vitest';
import {
  NetworkError,
  OAuthResponseError,
  ServerResponseError,
  SignInCallbackError,
} from '../../src/errors.js';
import { guard, guardCallback, requestOptions, toClientError } from '../../src/internal/http.js';
import { resolveOptions } from '../../src/options.js';

const AS: oauth.AuthorizationServer = {
  issuer: 'https://id.example.com/oidc',
  token_endpoint: 'https://id.example.com/oidc/token',
  authorization_response_iss_parameter_supported: true,
};
const CLIENT: oauth.Client = { client_id: 'console' };

const options = (extra: Record<string, unknown> = {}) =>
  resolveOptions({
    issuer: 'http://127.0.0.1:1/oidc',
    allowInsecureRequests: true,
    clientId: 'console',
    redirectUri: 'http://127.0.0.1:1/cb',
    resources: [],
    scopes: [],
    ...extra,
  });

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });

describe('requestOptions', () => {
  it('allows plain HTTP only where the policy does', () => {
    expect(requestOptions(options(), 'http://127.0.0.1:1/token')[oauth.allowInsecureRequests]).toBe(true);
    expect(
      requestOptions(options(), 'http://id.example.com/token')[oauth.allowInsecureRequests],
    ).toBeUndefined();
    expect(requestOptions(options(), 'https://127.0.0.1/token')[oauth.allowInsecureRequests]).toBeUndefined();
    expect(requestOptions(options(), undefined)[oauth.allowInsecureRequests]).toBeUndefined();
    const forced = options({ allowInsecureRequests: 'force' });
    expect(requestOptions(forced, 'http://id.example.com/token')[oauth.allowInsecureRequests]).toBe(true);
  });

  it('routes requests through a custom fetch, with a fresh timeout signal', async () => {
    const fetch = vi.fn(async () => json(200, {}));
    const opts = requestOptions(options({ fetch, timeout: 1234 }), undefined);
    await opts[oauth.customFetch]!('https://x.example/', { method: 'GET' } as never);
    expect(fetch).toHaveBeenCalledExactlyOnceWith('https://x.example/', { method: 'GET' });
    const signal = opts.signal('https://x.example/');
    expect(signal).toBeInstanceOf(AbortSignal);
    expect(signal.aborted).toBe(false);
    expect(requestOptions(options(), undefined)[oauth.customFetch]).toBeUndefined();
  });
});

describe('toClientError', () => {
  async function processed(response: Response): Promise<unknown> {
    return oauth.processRefreshTokenResponse(AS, CLIENT, response).catch((e: unknown) => e);
  }

  it('maps an OAuth error body', async () => {
    const err = toClientError(
      await processed(json(400, { error: 'invalid_grant', error_description: 'expired' })),
      'token',
    );
    expect(err).toBeInstanceOf(OAuthResponseError);
    expect(err).toMatchObject({
      error: 'invalid_grant',
      errorDescription: 'expired',
      status: 400,
      endpoint: 'token',
    });
  });

  it('maps a WWW-Authenticate challenge (client authentication failed)', async () => {
    const response = json(
      401,
      { error: 'invalid_client' },
      {
        'www-authenticate':
          'Basic realm="token", error="invalid_client", error_description="client authentication failed"',
      },
    );
    const err = toClientError(await processed(response), 'token');
    expect(err).toBeInstanceOf(OAuthResponseError);
    expect(err).toMatchObject({
      error: 'invalid_client',
      status: 401,
      errorDescription: 'client authentication failed',
    });
  });

  it('maps a non-conforming answer, without copying its body', async () => {
    const err = toClientError(
      await processed(json(200, { access_token: 'secret-token-value', token_type: 7 })),
      'token',
    );
    expect(err).toBeInstanceOf(ServerResponseError);
    expect((err as Error).message).not.toContain('secret-token-value');
    expect((err as ServerResponseError).cause).toBeUndefined();
    const html = toClientError(await processed(new Response('<html>', { status: 502 })), 'token');
    expect(html).toBeInstanceOf(ServerResponseError);
  });

  it('maps a refused connection and a timeout to NetworkError', async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    await new Promise((resolve) => server.close(resolve));
    const refused = await fetch(`http://127.0.0.1:${port}/`).catch((e: unknown) => e);
    expect(toClientError(refused, 'token')).toBeInstanceOf(NetworkError);

    const silent = createServer(() => {
      /* never answers */
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(silent.address() as AddressInfo).port}/`;
      const timedOut = await fetch(url, { signal: AbortSignal.timeout(100) }).catch((e: unknown) => e);
      expect(toClientError(timedOut, 'token')).toBeInstanceOf(NetworkError);
    } finally {
      silent.closeAllConnections();
      await new Promise((resolve) => silent.close(resolve));
    }
  });

  it('passes programming errors through', () => {
    const bug = new RangeError('bug');
    expect(toClientError(bug, 'token')).toBe(bug);
    const argument = Object.assign(new TypeError('bad argument'), { code: 'ERR_INVALID_ARG_TYPE' });
    expect(toClientError(argument, 'token')).toBe(argument);
  });
});

describe('guard', () => {
  it('rethrows mapped errors and passes results', async () => {
    expect(await guard('token', async () => 7)).toBe(7);
    await expect(
      guard('token', () =>
        oauth.processRefreshTokenResponse(AS, CLIENT, json(400, { error: 'invalid_scope' })),
      ),
    ).rejects.toMatchObject({ error: 'invalid_scope' });
  });
});

describe('guardCallback', () => {
  const validate = (params: Record<string, string>) =>
    guardCallback(() => oauth.validateAuthResponse(AS, CLIENT, new URLSearchParams(params), 'st'));

  it('passes a valid response', () => {
    expect(validate({ code: 'c', state: 'st', iss: AS.issuer }).get('code')).toBe('c');
  });
  it('maps an error response to OAuthResponseError', () => {
    expect(() => validate({ error: 'login_required', state: 'st', iss: AS.issuer })).toThrow(
      OAuthResponseError,
    );
  });
  it('maps a missing or foreign iss to SignInCallbackError', () => {
    expect(() => validate({ code: 'c', state: 'st' })).toThrow(SignInCallbackError);
    expect(() => validate({ code: 'c', state: 'st', iss: 'https://evil.example/oidc' })).toThrow(
      SignInCallbackError,
    );
  });
});
