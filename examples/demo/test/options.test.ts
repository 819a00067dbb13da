import { describe, expect, it } from 'vitest';
import { DEFAULTS, parseOptions, USAGE, UsageError } from '../src/options.ts';

describe('parseOptions', () => {
  it('defaults to the documented ports and keeps serving', () => {
    expect(parseOptions([], {})).toEqual({
      ports: { issuer: 3001, api: 4001, backend: 4100, console: 4200 },
      once: false,
    });
    expect(parseOptions([], {})).toEqual(DEFAULTS);
  });

  it('reads ports from the environment, and flags over the environment (both flag forms)', () => {
    const options = parseOptions(['--api-port', '5001', '--console-port=5200'], {
      DEMO_API_PORT: '6001',
      DEMO_BACKEND_PORT: '6100',
    });
    expect(options.ports).toEqual({ issuer: 3001, api: 5001, backend: 6100, console: 5200 });
  });

  it('stops after the flow with --once, or when CI is set; ignores the "--" pnpm passes on', () => {
    expect(parseOptions(['--', '--once'], {}).once).toBe(true);
    expect(parseOptions([], { CI: 'true' }).once).toBe(true);
    expect(parseOptions([], { CI: '' }).once).toBe(false);
  });

  it('allows port 0 for several servers (any free port)', () => {
    const env = { DEMO_ISSUER_PORT: '0', DEMO_API_PORT: '0', DEMO_BACKEND_PORT: '0', DEMO_CONSOLE_PORT: '0' };
    expect(Object.values(parseOptions([], env).ports)).toEqual([0, 0, 0, 0]);
  });

  it.each([
    [['--api-port', 'http'], '--api-port must be a port number between 0 and 65535'],
    [['--api-port', '70000'], '--api-port must be a port number between 0 and 65535'],
    [['--api-port'], '--api-port needs a port number'],
    [['--issuer-port', '4001'], 'each server needs its own port'],
  ])('refuses %j with a message naming the problem', (argv, message) => {
    expect(() => parseOptions(argv, {})).toThrow(new UsageError(message));
  });

  it('names a bad environment variable, and an unknown flag with the usage', () => {
    expect(() => parseOptions([], { DEMO_ISSUER_PORT: '-1' })).toThrow(
      'DEMO_ISSUER_PORT must be a port number',
    );
    expect(() => parseOptions(['--port', '1'], {})).toThrow(`unknown option --port\n${USAGE}`);
    expect(() => parseOptions(['--help'], {})).toThrow(USAGE);
  });
});
