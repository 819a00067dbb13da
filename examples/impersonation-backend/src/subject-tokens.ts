/**
 * The one Management API call the backend makes: `POST /api/subject-tokens`, with its cached M2M token.
 * When the Management API answers 401 (the token was revoked, or the issuer's keys changed), the token
 * is dropped and the call is made once more with a new one.
 *
 * @module
 */
import type { TokenSource } from './m2m-token.ts';

/** What `POST /api/subject-tokens` takes. */
export interface SubjectTokenRequest {
  /** The user to impersonate. */
  readonly userId: string;
  /** Recorded in the issuer's audit trail and given to its custom claims function (at most 4 KB). */
  readonly context: Readonly<Record<string, unknown>>;
  /** Only this user's access token can redeem it as `actor_token`. */
  readonly actorId?: string;
  /** Only this application (client id) can redeem it. */
  readonly applicationId?: string;
}

/** A minted subject token. Single use; pass it on, never log it. */
export interface SubjectToken {
  readonly subjectToken: string;
  /** Seconds until it expires. */
  readonly expiresIn: number;
}

/** The Management API refused (`status` 4xx, `code` its error code) or failed. */
export class ManagementApiError extends Error {
  override readonly name = 'ManagementApiError';
  readonly status: number;
  readonly code: string | undefined;
  constructor(status: number, code: string | undefined) {
    super(`Management API answered ${status}${code === undefined ? '' : ` ${code}`}`);
    this.status = status;
    this.code = code;
  }
}

/** Options of {@link createSubjectTokenClient}. */
export interface SubjectTokenClientOptions {
  /** The Management API's base URL (`{baseUrl}/api`). */
  managementApi: string;
  /** The backend's M2M token (scope `subject-tokens:create`). */
  tokens: TokenSource;
  fetch?: typeof fetch;
}

/** Mints subject tokens. */
export interface SubjectTokenClient {
  create(request: SubjectTokenRequest): Promise<SubjectToken>;
}

/**
 * Create the client.
 *
 * @example
 * ```ts
 * const subjectTokens = createSubjectTokenClient({ managementApi: 'http://127.0.0.1:3001/api', tokens });
 * const { subjectToken, expiresIn } = await subjectTokens.create({
 *   userId: 'usr_alice',
 *   context: { ticketId: 'SUP-1234', reason: 'cannot see an order', engineerId: 'usr_sam' },
 *   actorId: 'usr_sam',
 * });
 * ```
 */
export function createSubjectTokenClient(options: SubjectTokenClientOptions): SubjectTokenClient {
  const { managementApi, tokens } = options;
  const doFetch = options.fetch ?? fetch;
  const url = `${managementApi.replace(/\/+$/, '')}/subject-tokens`;

  async function post(request: SubjectTokenRequest): Promise<Response> {
    return doFetch(url, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${await tokens.get()}`,
        'content-type': 'application/json',
        accept: 'application/json',
      },
      body: JSON.stringify(request),
    });
  }

  return {
    async create(request) {
      let res = await post(request);
      if (res.status === 401) {
        await res.arrayBuffer().catch(() => undefined); // drain it, so the connection is reused
        tokens.invalidate();
        res = await post(request);
      }
      const body = (await res.json().catch(() => ({}))) as {
        subjectToken?: unknown;
        expiresIn?: unknown;
        code?: unknown;
      };
      if (res.status !== 201 || typeof body.subjectToken !== 'string' || typeof body.expiresIn !== 'number') {
        throw new ManagementApiError(res.status, typeof body.code === 'string' ? body.code : undefined);
      }
      return { subjectToken: body.subjectToken, expiresIn: body.expiresIn };
    },
  };
}
