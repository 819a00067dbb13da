/** Redaction of credential-named fields. */

import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { createLogger, REDACT_PATHS } from '../src/logger.js';
import { LogCapture } from './helpers/issuer.js';

describe('logger', () => {
  it('redacts credential fields at any of three levels', () => {
    const logs = new LogCapture();
    const log = createLogger({ log: { level: 'info', destination: logs, logger: undefined } });
    log.info(
      {
        password: 'p1',
        client_secret: 's1',
        headers: { authorization: 'Bearer t1', cookie: 'c1' },
        body: { refresh_token: 'r1', code: 'code1', nested: { access_token: 'a1' } },
        token: 't2',
        subjectToken: 'st1',
        form: { subject_token: 'st2', actor_token: 'at1' },
        personalAccessToken: 'pat1',
      },
      'hello',
    );
    const line = logs.text;
    for (const value of ['p1', 's1', 't1', 'c1', 'r1', 'code1', 'a1', 't2', 'st1', 'st2', 'at1', 'pat1'])
      expect(line).not.toContain(`"${value}"`);
    expect(line).toContain('[redacted]');
    expect(JSON.parse(line)).toMatchObject({ name: 'gatehouse-issuer', msg: 'hello' });
  });

  it('wraps a given pino logger with the same redaction', () => {
    const logs = new LogCapture();
    const log = createLogger({ log: { level: 'info', destination: undefined, logger: pino(logs) } });
    log.info({ secret: 'shh' }, 'x');
    expect(logs.text).not.toContain('shh');
    expect(REDACT_PATHS).toContain('*.*.authorization');
  });
});
