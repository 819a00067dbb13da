/**
 * Requests Node refuses before the issuer sees them (B75): a 20 KB `Authorization` header gets a JSON
 * 431, a malformed request a JSON 400, both without echoing the request; the server keeps serving.
 */
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawRequest } from '../helpers/forwarding-agent.js';
import { startIssuer, type TestIssuer } from '../helpers/issuer.js';

/** Send `bytes` on a new connection and read everything until the server closes it. */
function exchangeBytes(origin: string, bytes: string): Promise<string> {
  const { hostname, port } = new URL(origin);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.write(bytes));
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('utf8')));
    socket.setTimeout(5_000, () => socket.destroy(new Error('no answer')));
  });
}

describe('client errors', () => {
  let t: TestIssuer;
  beforeAll(async () => {
    t = await startIssuer('sqlite');
  });
  afterAll(() => t.close());

  it('B75: a 20 KB Authorization header → JSON 431, never the header back', async () => {
    const secret = `Bearer ${'s'.repeat(20_000)}`;
    for (const target of ['/oidc/token', '/api/users', '/health']) {
      const res = await rawRequest(t.baseUrl, { target, headers: { authorization: secret } });
      expect(res.status).toBe(431);
      expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(res.headers.get('connection')).toBe('close');
      expect(JSON.parse(res.text)).toEqual({
        code: 'invalid_request',
        message: expect.stringMatching(/^Request headers too large \(at most \d+ bytes in all\)$/),
      });
      expect(res.text).not.toContain('sss');
    }
    expect((await fetch(`${t.baseUrl}/health`)).status).toBe(200);
  });

  it('B75: a malformed request line or header → JSON 400', async () => {
    for (const bytes of ['GARBAGE\r\n\r\n', 'GET / HTTP/1.1\r\nHost: x\r\nBad Header: \u0001\r\n\r\n']) {
      const answer = await exchangeBytes(t.baseUrl, bytes);
      const [head, body] = answer.split('\r\n\r\n');
      expect(head).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
      expect(head).toContain('Content-Type: application/json; charset=utf-8');
      expect(JSON.parse(body!)).toEqual({ code: 'invalid_request', message: 'Malformed HTTP request' });
    }
    expect((await fetch(`${t.baseUrl}/health`)).status).toBe(200);
  });
});
