/** The in-memory DPoP replay store (src/replay-store.ts). */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { MemoryReplayStore, type ReplayStore } from '../src/index.js';

afterEach(() => {
  vi.useRealTimers();
});

describe('MemoryReplayStore', () => {
  it('says true for a new id and false for one it holds', () => {
    const store: ReplayStore = new MemoryReplayStore();
    const until = Date.now() + 60_000;
    expect(store.record('a', until)).toBe(true);
    expect(store.record('a', until)).toBe(false);
    expect(store.record('b', until)).toBe(true);
  });

  it('forgets an id after its expiry', () => {
    vi.useFakeTimers({ now: 1_700_000_000_000 });
    const store = new MemoryReplayStore();
    expect(store.record('a', Date.now() + 1_000)).toBe(true);
    vi.advanceTimersByTime(999);
    expect(store.record('a', Date.now() + 1_000)).toBe(false);
    vi.advanceTimersByTime(2);
    expect(store.record('a', Date.now() + 1_000)).toBe(true);
  });

  it('does not hold an id whose expiry has passed already', () => {
    const store = new MemoryReplayStore();
    expect(store.record('old', Date.now() - 1)).toBe(true);
    expect(store.size).toBe(0);
  });

  it('is bounded, and counts ids dropped before their expiry', () => {
    const store = new MemoryReplayStore({ max: 3 });
    const until = Date.now() + 60_000;
    for (const id of ['a', 'b', 'c', 'd']) store.record(id, until);
    expect(store.size).toBe(3);
    expect(store.evictedEarly).toBe(1);
    expect(store.record('a', until)).toBe(true);
  });

  it('validates its options', () => {
    expect(() => new MemoryReplayStore({ max: 0 })).toThrow('"max" option must be a positive integer');
    expect(() => new MemoryReplayStore({ max: 1.5 })).toThrow(TypeError);
    expect(() => new MemoryReplayStore(null as never)).toThrow(TypeError);
  });
});
