// docs/runtimes.md: Deno.serve with @gatehouse/core, run by Deno in runtimes-docs.test.ts.
import { createVerifier, errorResponse, isAuthError } from '@gatehouse/core';

declare const Deno: {
  env: { get(name: string): string | undefined };
  serve(options: { port: number }, handler: (request: Request) => Promise<Response>): unknown;
};

const verifier = createVerifier({ issuer: Deno.env.get('ISSUER')!, audience: Deno.env.get('AUDIENCE')! });

Deno.serve({ port: Number(Deno.env.get('PORT') ?? 8000) }, async (request) => {
  try {
    const auth = await verifier.authenticate(request, { scopes: 'read:orders' });
    return Response.json({ orders: [], user: auth.subject });
  } catch (error) {
    if (isAuthError(error)) return errorResponse(error);
    throw error;
  }
});
