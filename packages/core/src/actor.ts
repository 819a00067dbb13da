/**
 * The RFC 8693 §4.1 `act` claim: who is acting on behalf of the subject. Each `act` must be a JSON
 * object with a string `sub`; nested `act` members form the delegation chain, walked iteratively to a
 * depth of at most {@link MAX_ACTOR_DEPTH}. `may_act` (§4.4) states who *may* act and is never read
 * as the actor. Only the top-level `act.sub` is meant for access control; the rest is for audit.
 *
 * @module
 */
import type { Actor } from './types.js';

/** Deepest `act` chain accepted. Deeper chains make the token invalid. */
export const MAX_ACTOR_DEPTH = 5;

/**
 * Parse an `act` claim value. Returns `undefined` for an absent claim and `null` for an invalid one
 * (not an object, `sub` missing or not a string, or nested deeper than {@link MAX_ACTOR_DEPTH}).
 *
 * @example
 * ```ts
 * parseActor({ sub: 'support-7', act: { sub: 'admin-1' } });
 * // { sub: 'support-7', act: { sub: 'admin-1' } }
 * ```
 */
export function parseActor(value: unknown): Actor | undefined | null {
  if (value === undefined) return undefined;
  const links: Record<string, unknown>[] = [];
  let current: unknown = value;
  while (current !== undefined) {
    if (links.length === MAX_ACTOR_DEPTH) return null;
    if (current === null || typeof current !== 'object' || Array.isArray(current)) return null;
    const link = current as Record<string, unknown>;
    if (typeof link.sub !== 'string' || link.sub.length === 0) return null;
    links.push(link);
    current = link.act;
  }
  let actor: Actor | undefined;
  for (let i = links.length - 1; i >= 0; i--) {
    const link = links[i]!;
    const next: { sub: string; iss?: string; client_id?: string; act?: Actor } = { sub: link.sub as string };
    if (typeof link.iss === 'string') next.iss = link.iss;
    if (typeof link.client_id === 'string') next.client_id = link.client_id;
    if (actor !== undefined) next.act = actor;
    actor = Object.freeze(next);
  }
  return actor;
}

/**
 * The actor chain as a list of subjects, most recent actor first.
 *
 * @example
 * ```ts
 * actorChain({ sub: 'support-7', act: { sub: 'admin-1' } }); // ['support-7', 'admin-1']
 * ```
 */
export function actorChain(actor: Actor | undefined): string[] {
  const out: string[] = [];
  for (let a = actor; a !== undefined && out.length < MAX_ACTOR_DEPTH; a = a.act) out.push(a.sub);
  return out;
}
