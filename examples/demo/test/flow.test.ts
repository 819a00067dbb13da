import { describe, expect, it } from 'vitest';
import { CUSTOMER, ENGINEER, runFlow } from '../src/flow.ts';

describe('the README demo flow', () => {
  it('answers every step as documented', async () => {
    const steps = await runFlow();
    const summary = steps.map((s) => [
      s.request.split(' ')[0],
      s.status,
      (s.body as { error?: string } | null)?.error,
    ]);
    expect(summary).toEqual([
      ['GET', 401, 'unauthorized'],
      ['POST', 201, undefined],
      ['GET', 200, undefined],
      ['POST', 403, 'insufficient_scope'],
      ['GET', 200, undefined],
      ['DELETE', 403, 'access_denied'],
      ['GET', 401, 'invalid_token'],
      ['GET', 401, 'invalid_token'],
      ['GET', 401, 'invalid_token'],
      ['GET', 401, 'invalid_token'],
    ]);
    expect(steps[0]?.challenge).toBe('Bearer realm="api"');
    expect(steps[3]?.challenge).toContain('scope="write:orders"');
    const impersonated = steps[4]!;
    expect(impersonated.audit).toHaveLength(1);
    expect(impersonated.audit[0]).toMatchObject({ subject: CUSTOMER, actor: ENGINEER, delegated: true });
    expect((impersonated.body as { orders: unknown[] }).orders).toHaveLength(1);
  });

  it('never writes a token into the audit lines', async () => {
    const steps = await runFlow();
    const lines = JSON.stringify(steps.flatMap((s) => s.audit));
    expect(lines).not.toMatch(/eyJ[\w-]+\.[\w-]+\./);
  });
});
