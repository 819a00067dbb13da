/**
 * Management API calls with the signed-in user's access token (held in memory by @gatehouse/client,
 * sent in the Authorization header only). A refusal becomes an {@link ApiError} whose message is a
 * sentence (with the field problems the API names), never raw JSON; a change that needs a more recent
 * sign-in (401 `insufficient_user_authentication`, RFC 9470) becomes a {@link StepUpRequired}.
 */
import { isClientError, type StepUpChallenge, stepUpChallenge } from '@gatehouse/client';
import { describeFailure, type ErrorBody } from './messages.js';
import type { ChangeRequest } from './pending.js';
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

/**
 * The API asks for a more recent sign-in before it makes this change (catalogue F20): the request and
 * the challenge (`max_age`, `acr_values`) let the console sign the person in again and repeat it.
 *
 * @example
 * ```ts
 * try { await call(session, 'POST', '/signing-keys/rotate'); }
 * catch (err) { if (err instanceof StepUpRequired) await session.client.signIn({ maxAge: err.challenge.maxAge }); }
 * ```
 */
export class StepUpRequired extends ApiError {
  readonly challenge: StepUpChallenge;
  readonly request: ChangeRequest;
  constructor(challenge: StepUpChallenge, request: ChangeRequest) {
    super(401, 'This change needs a recent sign-in: sign in again to make it.');
    this.name = 'StepUpRequired';
    this.challenge = challenge;
    this.request = request;
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
  const challenge = stepUpChallenge(response);
  if (challenge !== undefined) {
    await response.body?.cancel();
    throw new StepUpRequired(challenge, { method, path, ...(body === undefined ? {} : { body }) });
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
