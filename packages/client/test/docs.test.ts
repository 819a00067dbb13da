/** docs/client.md states the same defaults as DEFAULTS and documents every error class and method. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import * as api from '../src/index.js';

const doc = readFileSync(join(import.meta.dirname, '../../../docs/client.md'), 'utf8');
const row = (option: string) => doc.split('\n').find((line) => line.startsWith(`| \`${option}\``));

describe('docs/client.md', () => {
  it.each([
    ['storage', `'${api.DEFAULTS.storage}'`],
    ['allowInsecureRequests', String(api.DEFAULTS.allowInsecureRequests)],
    ['timeout', String(api.DEFAULTS.timeout)],
    ['expiryLeeway', String(api.DEFAULTS.expiryLeeway)],
    ['dpop', 'false'],
  ])('states the default of %s (%s)', (option, value) => {
    expect(row(option), `row for ${option}`).toBeDefined();
    expect(row(option)!.split('|')[2]).toContain(`\`${value}\``);
  });

  it('documents every option of ClientOptions', () => {
    const options = [
      'issuer',
      'endpoint',
      'clientId',
      'clientSecret',
      'redirectUri',
      'postLogoutRedirectUri',
      'resources',
      'scopes',
      'storage',
      'allowInsecureRequests',
      'timeout',
      'expiryLeeway',
      'fetch',
      'dpop',
    ] satisfies (keyof api.ClientOptions)[];
    for (const option of options) expect(row(option), option).toBeDefined();
  });

  it('documents every error class and its OAuth error code', () => {
    const errors = Object.entries(api as Record<string, unknown>)
      .filter(([, value]) => typeof value === 'function' && value.prototype instanceof api.ClientError)
      .map(([name]) => name);
    expect(errors.length).toBe(6);
    for (const name of errors) expect(doc).toContain(`| \`${name}\``);
    for (const code of [
      'invalid_target',
      'login_required',
      'invalid_request',
      'server_error',
      'temporarily_unavailable',
    ])
      expect(doc).toContain(`\`${code}\``);
  });

  it('documents every method', () => {
    for (const method of [
      'signIn(',
      'handleSignInCallback(',
      'signOut(',
      'getAccessToken(',
      'exchangeSubjectToken(',
      'getIdTokenClaims(',
      'isAuthenticated(',
      'fetch(',
      'dpopThumbprint(',
    ])
      expect(doc).toContain(`\`${method}`);
  });
});
