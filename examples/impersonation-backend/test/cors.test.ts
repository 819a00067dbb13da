import express from 'express';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { cors } from '../src/cors.ts';

const ORIGIN = 'http://127.0.0.1:4200';
const app = express();
app.use(cors([ORIGIN]));
app.all('/thing', (req, res) => {
  res.json({ method: req.method });
});

describe('cors', () => {
  it('answers a preflight from a listed origin with 204 and the allowed headers', async () => {
    const res = await request(app)
      .options('/thing')
      .set('origin', ORIGIN)
      .set('access-control-request-method', 'POST');
    expect(res.status).toBe(204);
    expect(res.headers['access-control-allow-origin']).toBe(ORIGIN);
    expect(res.headers['access-control-allow-methods']).toBe('GET, POST, DELETE');
    expect(res.headers['access-control-allow-credentials']).toBeUndefined();
    expect(res.headers.vary).toContain('Origin');
  });

  it('marks simple requests from a listed origin and lets them through', async () => {
    const res = await request(app).get('/thing').set('origin', ORIGIN);
    expect(res.body).toEqual({ method: 'GET' });
    expect(res.headers['access-control-allow-origin']).toBe(ORIGIN);
    expect(res.headers['access-control-expose-headers']).toBe('WWW-Authenticate, Retry-After');
  });

  it('adds nothing for another origin or no origin, and passes a plain OPTIONS request on', async () => {
    const other = await request(app)
      .options('/thing')
      .set('origin', 'http://127.0.0.1:9999')
      .set('access-control-request-method', 'POST');
    expect(other.headers['access-control-allow-origin']).toBeUndefined();
    const none = await request(app).get('/thing');
    expect(none.headers['access-control-allow-origin']).toBeUndefined();
    const plain = await request(app).options('/thing').set('origin', ORIGIN);
    expect(plain.body).toEqual({ method: 'OPTIONS' });
  });
});
