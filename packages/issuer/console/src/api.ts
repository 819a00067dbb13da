/**
 * Management API calls with the signed-in user's access token. A refusal becomes an {@link ApiError}
 * whose message is a sentence (with the field problems the API names), never raw JSON.
 */
import { isClientError } from '@gatehouse/client';
import { describeFailure, type ErrorBody } from './messages.js';
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
    // No token to be had (the sign-in ended or was revoked) is not a network problem.
    if (isClientError(err) && (err.reason === 'not_signed_in' || err.error === 'invalid_grant'))
      throw new ApiError(401, describeFailure(401, undefined));
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
