import { describe, expect, it } from 'vitest';
import { requestBuilder } from '../src/request.js';

// What each builder hands core (headers, method, URL for DPoP's htu, TLS certificate) is checked end
// to end by packages/adapter-conformance, on real servers of both platforms (sections A and D).
describe('requestBuilder', () => {
  it('builds for the express and fastify platforms, and refuses any other by name', () => {
    expect(requestBuilder('express')).toBeTypeOf('function');
    expect(requestBuilder('fastify')).toBeTypeOf('function');
    expect(requestBuilder('express')).not.toBe(requestBuilder('fastify'));
    expect(() => requestBuilder('hyper-express')).toThrow(
      '@gatehouse/nestjs supports the express and fastify platforms, not "hyper-express"',
    );
  });

  it('reads the URL and the client certificate only when core asks for them', () => {
    let reads = 0;
    const request = {
      headers: {},
      rawHeaders: [],
      method: 'GET',
      query: {},
      body: undefined,
      protocol: 'http',
      get host() {
        reads++;
        return 'api.test';
      },
      originalUrl: '/orders?page=2',
      socket: {},
    };
    const like = requestBuilder('express')(request as never, undefined);
    expect(reads).toBe(0);
    expect(like.url).toBe('http://api.test/orders?page=2');
    expect(reads).toBe(1);
    expect(like.clientCertificate).toBeUndefined();
    expect(requestBuilder('express')(request as never, 'https://api.example.com').url).toBe(
      'https://api.example.com/orders?page=2',
    );
  });
});
