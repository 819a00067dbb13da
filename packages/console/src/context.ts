/**
 * The signed-in session, shared by every page, links under the console's base path, and the way any
 * action asks for a fresh sign-in.
 */
import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { StepUpRequired } from './api.js';
import type { Session } from './session.js';

export const SessionContext = createContext<Session | undefined>(undefined);

/** Offer a fresh sign-in for a change the API refused with {@link StepUpRequired} (see `components/step-up.tsx`). */
export const StepUpContext = createContext<((refusal: StepUpRequired) => void) | undefined>(undefined);

/** The current session (pages render only when signed in). */
export function useSession(): Session {
  return useContext(SessionContext)!;
}

/** A console path (`/users/x`) as a URL path under the base (`/console/users/x`). */
export function useHref(): (path: string) => string {
  const session = useSession();
  return (path) => `${session.config.basePath}${path}`;
}
