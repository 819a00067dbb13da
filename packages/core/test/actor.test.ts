import { describe, expect, it } from 'vitest';
import { actorChain, MAX_ACTOR_DEPTH, parseActor } from '../src/index.js';

function nested(depth: number): unknown {
  let act: Record<string, unknown> = { sub: `actor-${depth}` };
  for (let i = depth - 1; i >= 1; i--) act = { sub: `actor-${i}`, act };
  return act;
}

describe('parseActor', () => {
  it('returns undefined when act is absent', () => {
    expect(parseActor(undefined)).toBeUndefined();
  });

  it('keeps sub, iss, client_id and the nested chain only', () => {
    const actor = parseActor({
      sub: 'support-7',
      iss: 'https://id',
      client_id: 'console',
      extra: 1,
      act: { sub: 'admin' },
    });
    expect(actor).toEqual({
      sub: 'support-7',
      iss: 'https://id',
      client_id: 'console',
      act: { sub: 'admin' },
    });
    expect(Object.isFrozen(actor)).toBe(true);
  });

  // Catalogue A46: not an object, or sub missing / not a string → invalid.
  it.each([
    ['support-7'],
    [['support-7']],
    [null],
    [42],
    [{}],
    [{ sub: 7 }],
    [{ sub: '' }],
    [{ sub: 'a', act: 'b' }],
  ])('rejects %j', (act) => {
    expect(parseActor(act)).toBeNull();
  });

  it(`accepts chains up to depth ${MAX_ACTOR_DEPTH} and rejects deeper ones`, () => {
    expect(actorChain(parseActor(nested(MAX_ACTOR_DEPTH)) ?? undefined)).toHaveLength(MAX_ACTOR_DEPTH);
    expect(parseActor(nested(MAX_ACTOR_DEPTH + 1))).toBeNull();
  });

  // Catalogue A47: 10,000 levels deep → bounded walk, no stack overflow.
  it('walks a 10,000-deep chain without overflowing the stack', () => {
    const deep = JSON.parse(`${'{"sub":"x","act":'.repeat(10_000)}{"sub":"y"}${'}'.repeat(10_000)}`);
    expect(parseActor(deep)).toBeNull();
  });
});

describe('actorChain', () => {
  it('lists actors most recent first', () => {
    expect(actorChain({ sub: 'a', act: { sub: 'b', act: { sub: 'c' } } })).toEqual(['a', 'b', 'c']);
    expect(actorChain(undefined)).toEqual([]);
  });
});
