/**
 * Management API calls with the signed-in user's access token. A refusal becomes an {@link ApiError}
 * whose message is a sentence (with the field problems the API names), never raw JSON.
 */
import type { Session } from './session.js';

/** A failed call, with a message for people. */
export class ApiError extends Error {
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
  }
}

interface ErrorBody {
  readonly code?: string;
  readonly message?: string;
  readonly issues?: readonly { readonly path: string; readonly message: string }[];
}

const BY_STATUS: Readonly<Record<number, string>> = {
  401: 'Your session has ended. Sign in again.',
  403: 'You are not allowed to do this: your roles do not grant the permission it needs.',
  404: 'It no longer exists.',
  409: 'That conflicts with something that exists already.',
  429: 'Too many requests. Wait a moment and try again.',
};

/** Turn an error response into a sentence. */
export function describeFailure(status: number, body: ErrorBody | undefined): string {
  const issues = (body?.issues ?? []).map((issue) => `${issue.path.replace(/^body\./, '')} ${issue.message}`);
  const base =
    status === 403 || status === 401
      ? BY_STATUS[status]!
      : (body?.message ?? BY_STATUS[status] ?? `The issuer answered ${status}.`);
  return issues.length > 0 ? `${base}: ${issues.join('; ')}.` : base;
}

/** Call the Management API; resolves to the JSON body (or `undefined` for 204). */
export async function call<T = unknown>(
  session: Session,
  method: string,
  path: string,
  body?: unknown,
): Promise<T> {
  let response: Response;
  try {
    const token = await session.client.getAccessToken(session.config.managementApi);
    response = await fetch(`${session.config.managementApi}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (err) {
    throw new ApiError(0, `The issuer could not be reached (${(err as Error).message}).`);
  }
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = text === '' ? undefined : JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  if (!response.ok)
    throw new ApiError(response.status, describeFailure(response.status, parsed as ErrorBody));
  return parsed as T;
}

/** A page of a list endpoint. */
export interface Page<T> {
  readonly items: readonly T[];
  readonly total?: number;
  readonly page?: number;
  readonly pageSize?: number;
}
