/**
 * API refusals as sentences for people (no DOM: unit-tested in Node): the scope ceiling's refusals as
 * their message with what to do, conflicts naming what exists already, and the field problems of a
 * refused body as one sentence each ("The password must be at least 8 characters long.") instead of
 * the schema's wording ("password Too small: expected string to have >=8 characters").
 */

/** The error body of the Management API. */
export interface ErrorBody {
  readonly code?: string;
  readonly message?: string;
  /** Why the scope ceiling refused (403 `access_denied`). */
  readonly reason?: string;
  readonly issues?: readonly { readonly path: string; readonly message: string }[];
}

const BY_STATUS: Readonly<Record<number, string>> = {
  401: 'Your session has ended. Sign in again.',
  403: 'You are not allowed to do this: your roles do not grant the permission it needs.',
  404: 'It no longer exists.',
  409: 'That conflicts with something that exists already.',
  429: 'Too many requests. Wait a moment and try again.',
};

/** What to do about each refusal of the scope ceiling, after its message. */
const CEILING_HINTS: Readonly<Record<string, string>> = {
  role_exceeds_caller: 'You can only grant roles whose scopes you hold yourself.',
  scope_exceeds_caller: 'You can only add scopes you hold yourself.',
  principal_exceeds_caller: 'You can only change users and applications that hold no more than you do.',
  built_in: '',
  configuration_only: 'Change them in the issuer’s configuration instead.',
  scope_not_held: 'Sign out and in again to see what your roles allow now.',
};

/** The uniqueness rules of the store (`409 "{field} is already taken"`), as sentences. */
const CONFLICTS: Readonly<Record<string, string>> = {
  'user.username': 'A user with this username exists already.',
  'user.email': 'A user with this email address exists already.',
  'resource.indicator': 'An API resource with this indicator exists already.',
  'scope.name': 'This API resource has a scope of this name already.',
  'role.name': 'A role with this name exists already.',
  'personal_access_token.name': 'This user has a personal access token of this name already.',
};

/** Fields as people call them; others are spelled out from their camelCase name. */
const FIELDS: Readonly<Record<string, string>> = {
  accessTokenTtl: 'the access token lifetime',
  customData: 'the custom data',
  email: 'the email address',
  expiresAt: 'the expiry',
  indicator: 'the indicator',
  postLogoutRedirectUris: 'the post-logout redirect URIs',
  redirectUris: 'the redirect URIs',
  roleIds: 'the roles',
  scopeIds: 'the scopes',
  url: 'the URL',
};

const KINDS: Readonly<Record<string, string>> = {
  string: 'text',
  number: 'a number',
  int: 'a whole number',
  boolean: 'true or false',
  array: 'a list',
  object: 'a JSON object',
};

/**
 * `text` with a capital first letter and a full stop.
 *
 * @example
 * ```ts
 * sentence('user not found'); // 'User not found.'
 * ```
 */
export function sentence(text: string): string {
  const trimmed = text.trim();
  if (trimmed === '') return trimmed;
  const capital = trimmed[0]!.toUpperCase() + trimmed.slice(1);
  return /[.!?]$/.test(capital) ? capital : `${capital}.`;
}

/** `body.redirectUris.0` → "redirect URI 1"; `body.password` → "the password". */
function fieldName(path: string): { label: string; key: string } {
  const parts = path.split('.').slice(1); // without "body" / "query"
  const key = parts[0] ?? '';
  const index = parts[1] !== undefined && /^\d+$/.test(parts[1]) ? Number(parts[1]) : undefined;
  const named =
    FIELDS[key] ??
    (key === '' ? 'the request' : `the ${key.replace(/[A-Z]/g, (c) => ` ${c.toLowerCase()}`)}`);
  if (index === undefined) return { label: named, key };
  const one = named.replace(/^the /, '').replace(/s$/, '');
  return { label: `${one} ${index + 1}`, key };
}

/** A schema message ("Too small: expected string to have >=8 characters") as the rest of a sentence. */
function problem(message: string, key: string): string {
  let match: RegExpExecArray | null;
  if ((match = /^Too small: expected string to have >=(\d+) characters?$/.exec(message)))
    return `must be at least ${match[1]} characters long`;
  if ((match = /^Too big: expected string to have <=(\d+) characters?$/.exec(message)))
    return `must be at most ${match[1]} characters long`;
  if ((match = /^Too small: expected array to have >=(\d+) items?$/.exec(message)))
    return `must have at least ${match[1]} ${match[1] === '1' ? 'entry' : 'entries'}`;
  if ((match = /^Too big: expected array to have <=(\d+) items?$/.exec(message)))
    return `must have at most ${match[1]} ${match[1] === '1' ? 'entry' : 'entries'}`;
  if ((match = /^Too small: expected number to be (>=?)(\d+)$/.exec(message)))
    return match[1] === '>=' ? `must be at least ${match[2]}` : `must be more than ${match[2]}`;
  if ((match = /^Too big: expected number to be (<=?)(\d+)$/.exec(message)))
    return match[1] === '<=' ? `must be at most ${match[2]}` : `must be less than ${match[2]}`;
  if ((match = /^Invalid input: expected (\w+), received (\w+)$/.exec(message)))
    return match[2] === 'undefined' ? 'is required' : `must be ${KINDS[match[1]!] ?? match[1]}`;
  if ((match = /^Invalid option: expected one of (.+)$/.exec(message)))
    return `must be one of ${match[1]!.replaceAll('"', '').split('|').join(', ')}`;
  if (/^Invalid email address$/.test(message))
    return key === 'email' ? 'is not valid' : 'is not a valid email address';
  if (/^Invalid (URL|url)$/.test(message)) return key === 'url' ? 'is not valid' : 'is not a valid URL';
  if (/^Invalid ISO datetime$/.test(message)) return 'is not a valid date and time';
  if (/^Invalid string: must match pattern/.test(message)) return 'holds characters that are not allowed';
  if ((match = /^unknown fields?: (.+)$/.exec(message)))
    return `${match[0].startsWith('unknown fields') ? 'has unknown fields' : 'has an unknown field'}: ${match[1]}`;
  // The API's own wording ("must be an absolute URI …"), without a repeated field name.
  return message.startsWith(`${key} `) ? message.slice(key.length + 1) : message;
}

/** One sentence per field the API names. */
function issueSentences(issues: NonNullable<ErrorBody['issues']>): string {
  return issues
    .map((issue) => {
      const { label, key } = fieldName(issue.path);
      return sentence(`${label} ${problem(issue.message, key)}`);
    })
    .join(' ');
}

/**
 * Turn an error response into one or more sentences.
 *
 * @example
 * ```ts
 * describeFailure(409, { code: 'conflict', message: 'user.username is already taken' });
 * // 'A user with this username exists already.'
 * ```
 */
export function describeFailure(status: number, body: ErrorBody | undefined): string {
  if (body?.issues !== undefined && body.issues.length > 0) return issueSentences(body.issues);
  const message = body?.message;
  if (status === 403) {
    if (body?.reason !== undefined && body.reason in CEILING_HINTS && message)
      return [sentence(message), CEILING_HINTS[body.reason]].filter(Boolean).join(' ');
    return BY_STATUS[403]!;
  }
  if (status === 401) return BY_STATUS[401]!;
  if (status === 409 && message !== undefined) {
    const field = /^([\w.]+) is already taken$/.exec(message)?.[1];
    if (field !== undefined)
      return CONFLICTS[field] ?? sentence(`this ${field.replace(/^\w+\./, '')} is in use already`);
  }
  if (message) return sentence(message);
  return BY_STATUS[status] ?? `The issuer answered ${status}.`;
}
