/**
 * Signing in again for a dangerous change (catalogue F20). When the Management API answers a change
 * with 401 `insufficient_user_authentication`, a dialog says why and offers "Sign in again": the
 * console keeps what was being done (see `pending.ts`) and starts a sign-in with the challenge's
 * `max_age` — the issuer asks for the password again (and the one-time code where the sign-in used
 * one). Back in the console, a notice says what happened and offers the change again, once, on a
 * click: if the API still refuses, it says so instead of signing in again (no loop).
 */
import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { call, StepUpRequired } from '../api.js';
import { StepUpContext, useHref, useSession } from '../context.js';
import { describeRequest, type PendingChange, savePending } from '../pending.js';
import { Dialog, messageOf } from '../ui.js';

/** The acr value of a sign-in with a one-time code (the issuer's `urn:gatehouse:acr:mfa`). */
const MFA = 'urn:gatehouse:acr:mfa';

/**
 * How a step-up sign-in ended, for the notice shown on return.
 *
 * @example
 * ```ts
 * const resume: Resume = { outcome: 'signed-in', pending };
 * ```
 */
export type Resume =
  | { readonly outcome: 'signed-in'; readonly pending: PendingChange }
  | { readonly outcome: 'other-user'; readonly pending: PendingChange; readonly name: string }
  | { readonly outcome: 'failed'; readonly pending: PendingChange; readonly message: string };

/**
 * Seconds as people say them: "5 minutes", "90 seconds", "1 hour".
 *
 * @example
 * ```ts
 * age(300); // '5 minutes'
 * ```
 */
export function age(seconds: number): string {
  const unit = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
  if (seconds % 3600 === 0 && seconds > 0) return unit(seconds / 3600, 'hour');
  if (seconds % 60 === 0 && seconds > 0) return unit(seconds / 60, 'minute');
  return unit(seconds, 'second');
}

const lowerFirst = (text: string) => `${text[0]!.toLowerCase()}${text.slice(1)}`;

function StepUpDialog({
  refusal,
  onClose,
}: {
  readonly refusal: StepUpRequired;
  readonly onClose: () => void;
}) {
  const session = useSession();
  const [busy, setBusy] = useState(false);
  const { action } = describeRequest(refusal.request);
  const { maxAge, acrValues } = refusal.challenge;
  return (
    <Dialog title="Sign in again to continue" onClose={onClose} id="step-up">
      <p>
        To {lowerFirst(action)}, the issuer needs a sign-in{' '}
        {maxAge === undefined ? 'made just now' : `from the last ${age(maxAge)}`}, and yours is older. It asks
        for your password again{session.acr === MFA ? ' and a code from your authenticator app' : ''}.
      </p>
      <p>You come back to this page afterwards, and can then finish what you started.</p>
      <div class="actions">
        <button type="button" class="secondary" onClick={onClose}>
          Cancel
        </button>
        <button
          type="button"
          id="step-up-sign-in"
          disabled={busy}
          onClick={async () => {
            setBusy(true);
            savePending(sessionStorage, {
              userId: session.userId,
              request: refusal.request,
              action,
              returnTo: `${location.pathname}${location.search}`,
              startedAt: Date.now(),
            });
            await session.client.signIn({
              maxAge: maxAge ?? 0,
              acrValues: acrValues ?? (session.acr === MFA ? [MFA] : undefined),
            });
          }}
        >
          Sign in again
        </button>
      </div>
    </Dialog>
  );
}

/**
 * Provides the "Sign in again" dialog to every action below it (`useAction` opens it).
 *
 * @example
 * ```tsx
 * <StepUpProvider><Router>…</Router></StepUpProvider>
 * ```
 */
export function StepUpProvider({ children }: { readonly children: ComponentChildren }) {
  const [refusal, setRefusal] = useState<StepUpRequired | undefined>(undefined);
  return (
    <StepUpContext.Provider value={setRefusal}>
      {children}
      {refusal === undefined ? null : (
        <StepUpDialog refusal={refusal} onClose={() => setRefusal(undefined)} />
      )}
    </StepUpContext.Provider>
  );
}

/**
 * The notice on return from a step-up sign-in: what happened, and the change offered again once.
 * `onDone` runs after the change was made (the page then reloads what it shows).
 *
 * @example
 * ```tsx
 * {resume ? <ResumeNotice resume={resume} onDone={() => setVersion((v) => v + 1)} /> : null}
 * ```
 */
export function ResumeNotice({ resume, onDone }: { readonly resume: Resume; readonly onDone: () => void }) {
  const session = useSession();
  const href = useHref();
  const { route } = useLocation();
  const ref = useRef<HTMLElement>(null);
  const [state, setState] = useState<'offer' | 'busy' | 'done' | 'dismissed'>('offer');
  const [error, setError] = useState<string | undefined>(undefined);
  useEffect(() => ref.current?.focus(), []);
  if (state === 'dismissed') return null;
  const { pending } = resume;
  const request = pending.request;
  const described = request === undefined ? undefined : describeRequest(request);
  const action = lowerFirst(pending.action);
  let text: string;
  if (resume.outcome === 'failed')
    text = `You did not sign in again (${lowerFirst(resume.message)}), so the change was not made. To ${action}, start again.`;
  else if (resume.outcome === 'other-user')
    text = `You signed in as ${resume.name}, not as the person who started to ${action}, so it was not repeated.`;
  else if (request === undefined) text = `You signed in again. To ${action}, do it again now.`;
  else text = `You signed in again. ${pending.action} now?`;
  const offer = resume.outcome === 'signed-in' && request !== undefined && state !== 'done';
  return (
    <section
      class="notice"
      id="step-up-notice"
      aria-labelledby="step-up-notice-title"
      tabIndex={-1}
      ref={ref}
    >
      <h2 id="step-up-notice-title">
        {resume.outcome === 'signed-in' ? 'Signed in again' : 'Not signed in again'}
      </h2>
      <p role="status" id="step-up-notice-text">
        {state === 'done' ? described?.done : text}
      </p>
      {error === undefined ? null : (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      <div class="actions left">
        {offer ? (
          <button
            type="button"
            id="step-up-repeat"
            disabled={state === 'busy'}
            onClick={async () => {
              setState('busy');
              setError(undefined);
              try {
                await call(session, request.method, request.path, request.body);
                setState('done');
                if (described?.after !== undefined) route(href(described.after));
                onDone();
              } catch (err) {
                setState('offer');
                setError(
                  err instanceof StepUpRequired
                    ? `The issuer still asks for a more recent sign-in, so it was not done. Try again from the page; if it keeps asking, the issuer's console.reauthenticateAfter may be shorter than signing in takes.`
                    : messageOf(err),
                );
              }
            }}
          >
            {pending.action}
          </button>
        ) : null}
        <button type="button" class="secondary" id="step-up-dismiss" onClick={() => setState('dismissed')}>
          {state === 'done' ? 'Close' : 'Dismiss'}
        </button>
      </div>
    </section>
  );
}
