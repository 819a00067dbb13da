// docs/runtimes.md: a Next.js App Router route handler (app/api/orders/route.ts), run by runtimes-docs.test.ts.
import { createVerifier, errorResponse, isAuthError } from '@gatehouse/core';

const verifier = createVerifier({ issuer: process.env.ISSUER!, audience: process.env.AUDIENCE! });

export async function GET(request: Request): Promise<Response> {
  try {
    const auth = await verifier.authenticate(request, { scopes: 'read:orders' });
    return Response.json({ orders: [], user: auth.subject });
  } catch (error) {
    if (isAuthError(error)) return errorResponse(error);
    throw error;
  }
}
