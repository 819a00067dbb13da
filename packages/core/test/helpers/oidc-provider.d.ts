/**
 * The slice of `oidc-provider` (which ships no type declarations) that the interoperability test uses.
 */
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http';

  export const errors: {
    InvalidTarget: new (description?: string) => Error;
  };

  export default class Provider {
    constructor(issuer: string, configuration?: Record<string, unknown>);
    /** A Node.js request listener serving every endpoint of the provider. */
    callback(): (req: IncomingMessage, res: ServerResponse) => void;
    on(event: string, listener: (...args: unknown[]) => void): this;
  }
}
