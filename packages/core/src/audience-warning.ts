/**
 * Telling the developer why tokens are refused for their audience. A wrong `audience` option (or one
 * with a trailing slash) gives clients 401 `invalid_token` and nothing more; `onWarning` gets an
 * {@link AudienceMismatchError} that names the issuer, the audiences the tokens name and those the
 * option accepts, and what differs when it is only a trailing slash, letter case, the scheme or the host.
 *
 * - Only refused tokens pay: the `aud` check calls {@link AudienceWarnings.report} from its failure
 *   branch, after the signature (so the issuer signed what is named). A valid token's path is unchanged.
 * - Once per cause (issuer and audiences named) per `DEFAULTS.warningInterval`, and at most
 *   `DEFAULTS.audienceWarnings.maxCauses` causes per interval: tokens naming ever new audiences can
 *   neither flood the logs nor grow memory.
 * - A token's `aud` is not chosen by the verifier: at most `maxAudiences` of its values are named, each
 *   printable ASCII cut at `maxLength` characters, in JSON quotes. The token itself is never named.
 *
 * @module
 */
import { DEFAULTS } from './defaults.js';
import { AudienceMismatchError, type KeySetError } from './errors.js';
import { printable } from './internal/printable.js';

/**
 * Bounds of what a warning names; see `DEFAULTS.audienceWarnings`.
 *
 * @example
 * ```ts
 * const limits: AudienceWarningLimits = { ...DEFAULTS.audienceWarnings, maxCauses: 1 };
 * ```
 */
export type AudienceWarningLimits = typeof DEFAULTS.audienceWarnings;

/** The audiences a refused token names: its `aud` values (the first `maxAudiences`), and how many more. */
interface Named {
  /** `none`: no `aud`, or an empty list; `invalid`: neither a string nor a list of strings. */
  readonly kind: 'named' | 'none' | 'invalid';
  /** The first values as the token has them (compared with the accepted audiences). */
  readonly raw: readonly string[];
  /** Values beyond `raw`. */
  readonly more: number;
}

const ADVICE_NAMED =
  'Audiences are compared exactly: make the "audience" option what the tokens name, or have clients ask the issuer for tokens for this API (its "resource" or "audience" parameter).';
const ADVICE_NONE =
  'Have clients ask the issuer for tokens for this API (its "resource" or "audience" parameter), and make the "audience" option what those tokens name.';

function named(aud: unknown, max: number): Named {
  if (aud === undefined || (Array.isArray(aud) && aud.length === 0))
    return { kind: 'none', raw: [], more: 0 };
  if (typeof aud === 'string') return { kind: 'named', raw: [aud], more: 0 };
  if (!Array.isArray(aud) || !aud.every((a) => typeof a === 'string'))
    return { kind: 'invalid', raw: [], more: 0 };
  return { kind: 'named', raw: aud.slice(0, max), more: Math.max(aud.length - max, 0) };
}

/** How `received` differs from `accepted` when the difference is a likely slip, or `undefined`. */
function difference(received: string, accepted: string, maxLength: number): string | undefined {
  const bare = (s: string) => (s.endsWith('/') ? s.slice(0, -1) : s);
  if (bare(received) === bare(accepted)) return 'only by a trailing slash';
  if (received.toLowerCase() === accepted.toLowerCase()) return 'only in letter case';
  const r = URL.parse(received);
  const a = URL.parse(accepted);
  if (r === null || a === null) return undefined;
  const rest = (u: URL) => `${u.pathname}${u.search}${u.hash}`;
  if (rest(r) !== rest(a)) return undefined;
  const show = (s: string) => printable(s, maxLength);
  if (r.host === a.host && r.protocol !== a.protocol)
    return `only in the scheme (${show(r.protocol)} in the tokens, ${show(a.protocol)} in the option)`;
  if (r.protocol !== a.protocol || r.host === a.host) return undefined;
  if (r.hostname === a.hostname) {
    const port = (u: URL) => (u.port === '' ? 'the default' : u.port);
    return `only in the port (${port(r)} in the tokens, ${port(a)} in the option)`;
  }
  return `only in the host (${show(r.host)} in the tokens, ${show(a.host)} in the option)`;
}

/** The sentence about the first pair that differs by a likely slip, or `''`. */
function slip(found: Named, accepted: readonly string[], quote: (s: string) => string, max: number): string {
  for (const received of found.raw) {
    for (const option of accepted) {
      const how = difference(received, option, max);
      if (how === undefined) continue;
      const one = found.raw.length === 1 && found.more === 0 && accepted.length === 1;
      return one ? ` They differ ${how}.` : ` ${quote(received)} and ${quote(option)} differ ${how}.`;
    }
  }
  return '';
}

/**
 * The warning's message.
 *
 * @example
 * ```ts
 * warningText('https://id.example.com/oidc', ['https://api.example.com'], named('https://api.example.com/', 5), DEFAULTS.audienceWarnings);
 * // 'tokens of issuer "https://id.example.com/oidc" are refused for their audience (401 invalid_token): they name
 * //  "https://api.example.com/", the "audience" option accepts "https://api.example.com". They differ only by a trailing slash. …'
 * ```
 */
function warningText(
  issuer: string,
  accepted: readonly string[],
  found: Named,
  limits: AudienceWarningLimits,
): string {
  const quote = (s: string) => JSON.stringify(printable(s, limits.maxLength));
  const shownAccepted = accepted.slice(0, limits.maxAudiences).map(quote);
  const hidden = accepted.length - shownAccepted.length;
  const options =
    shownAccepted.length === 1
      ? shownAccepted[0]!
      : `${shownAccepted.slice(0, -1).join(', ')} or ${shownAccepted.at(-1)}${hidden > 0 ? ` (and ${hidden} more)` : ''}`;
  const head = `tokens of issuer ${JSON.stringify(printable(issuer))} are refused for their audience (401 invalid_token)`;
  if (found.kind === 'none')
    return `${head}: they name no audience ("aud"), the "audience" option accepts ${options}. ${ADVICE_NONE}`;
  if (found.kind === 'invalid')
    return `${head}: their "aud" is neither a string nor a list of strings, the "audience" option accepts ${options}. ${ADVICE_NONE}`;
  const names = `${found.raw.map(quote).join(', ')}${found.more > 0 ? ` and ${found.more} more` : ''}`;
  const differs = slip(found, accepted, quote, limits.maxLength);
  return `${head}: they name ${names}, the "audience" option accepts ${options}.${differs} ${ADVICE_NAMED}`;
}

/**
 * The audience warnings of one verifier: rate-limited per cause, bounded, never holding a token.
 *
 * @example
 * ```ts
 * const warnings = new AudienceWarnings((warning) => console.warn(`gatehouse: ${warning.message}`));
 * // in the failure branch of the aud check, after the signature:
 * warnings.report(payload.iss, options.audiences, payload.aud);
 * ```
 */
export class AudienceWarnings {
  readonly #onWarning: (warning: KeySetError) => void;
  readonly #interval: number;
  readonly #limits: AudienceWarningLimits;
  /** When each cause was last reported (at most `maxCauses` entries). */
  readonly #reported = new Map<string, number>();

  constructor(
    onWarning: (warning: KeySetError) => void,
    interval: number = DEFAULTS.warningInterval,
    limits: AudienceWarningLimits = DEFAULTS.audienceWarnings,
  ) {
    this.#onWarning = onWarning;
    this.#interval = interval;
    this.#limits = limits;
  }

  /** Tell `onWarning` that a token of `issuer` naming `aud` was refused, unless this cause was told lately. */
  report(issuer: string, accepted: readonly string[], aud: unknown): void {
    const found = named(aud, this.#limits.maxAudiences);
    const max = this.#limits.maxLength;
    const cause = [issuer, found.kind, found.more, ...found.raw.map((a) => a.slice(0, max + 1))].join('\n');
    if (!this.#due(cause, Date.now())) return;
    const audiences = found.raw.map((a) => printable(a, max));
    const warning = new AudienceMismatchError(
      issuer,
      audiences,
      accepted,
      warningText(issuer, accepted, found, this.#limits),
    );
    try {
      this.#onWarning(warning);
    } catch {
      // A failing logger must not turn a 401 into something else.
    }
  }

  /** Whether `cause` is to be reported now; if so, remembered as reported. */
  #due(cause: string, now: number): boolean {
    const reported = this.#reported;
    const last = reported.get(cause);
    if (last !== undefined) {
      if (now - last < this.#interval) return false;
    } else if (reported.size >= this.#limits.maxCauses) {
      for (const [known, at] of reported) if (now - at >= this.#interval) reported.delete(known);
      if (reported.size >= this.#limits.maxCauses) return false;
    }
    reported.set(cause, now);
    return true;
  }
}
