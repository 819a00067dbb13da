// docs/runtimes.md: Bun.serve with @gatehouse/core, run by Bun in runtimes-docs.test.ts.
import { createVerifier, errorResponse, isAuthError } from '@gatehouse/core';

declare const Bun: {
  env: Record<string, string | undefined>;
  serve(options: { port: number; fetch(request: Request): Promise<Response> }): { url: URL };
};

const verifier = createVerifier({ issuer: Bun.env.ISSUER!, audience: Bun.env.AUDIENCE! });

const server = Bun.serve({
  port: Number(Bun.env.PORT ?? 3000),
  async fetch(request) {
    try {
      const auth = await verifier.authenticate(request, { scopes: 'read:orders' });
      return Response.json({ orders: [], user: auth.subject });
    } catch (error) {
      if (isAuthError(error)) return errorResponse(error);
      throw error;
    }
  },
});
console.log(`listening on ${server.url}`);
