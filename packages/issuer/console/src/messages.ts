/** API refusals as sentences for people (no DOM: unit-tested in Node). */

/** The error body of the Management API. */
export interface ErrorBody {
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
