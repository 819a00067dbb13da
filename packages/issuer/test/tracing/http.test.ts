/** What a request span records of its path: routes of the front door's own paths, ids masked. */
import { describe, expect, it } from 'vitest';
import { frontRoute, spanPath } from '../../src/tracing/http.js';

describe('request paths', () => {
  it.each([
    ['/', '/'],
    ['/health/ready', '/health/ready'],
    ['/interaction/abc_DEF-123', '/interaction/{uid}'],
    ['/interaction/abc/login', '/interaction/{uid}/login'],
    ['/interaction/abc/other', undefined],
    ['/console/assets/app.js', undefined],
  ])('frontRoute(%s) is %s', (path, route) => {
    expect(frontRoute(path, '')).toBe(route);
  });

  it.each([
    ['/id', '/id'],
    ['/id/', '/id'],
    ['/id/health', '/id/health'],
    ['/id/interaction/abc/consent', '/id/interaction/{uid}/consent'],
    ['/health', undefined],
    ['/idx/health', undefined],
  ])('under the base path /id, frontRoute(%s) is %s', (path, route) => {
    expect(frontRoute(path, '/id')).toBe(route);
  });

  it.each([
    ['/api/users/usr_0123456789abcdefghij', '/api/users/{id}'],
    ['/api/applications/app_x/roles/rol_y', '/api/applications/{id}/roles/{id}'],
    ['/api/users', '/api/users'],
    ['/oidc/token', '/oidc/token'],
  ])('spanPath(%s) is %s', (path, recorded) => {
    expect(spanPath(path)).toBe(recorded);
  });
});
