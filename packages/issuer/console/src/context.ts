/** The signed-in session, shared by every page, and links under the console's base path. */
import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { Session } from './session.js';

export const SessionContext = createContext<Session | undefined>(undefined);

/** The current session (pages render only when signed in). */
export function useSession(): Session {
  return useContext(SessionContext)!;
}

/** A console path (`/users/x`) as a URL path under the base (`/console/users/x`). */
export function useHref(): (path: string) => string {
  const session = useSession();
  return (path) => `${session.config.basePath}${path}`;
}
