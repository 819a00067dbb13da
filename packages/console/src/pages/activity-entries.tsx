/**
 * The entries of the activity page's views: an impersonation (actor, as whom, application, API,
 * scopes, the integrator's context), an administrator's change (who, a sentence of what and on what,
 * the fields sent, when) and a refused sign-in (who or which address, why). People, applications and
 * what a change acted on are shown by name, linked to their pages when the session may read them.
 */
import type { ComponentChildren } from 'preact';
import { type Names, RefLink, useNames } from '../components/named.js';
import {
  type AuditEvent,
  describeChange,
  exchangeRefusal,
  type Phrase,
  type Ref,
  signInRefusal,
  VIEW_TYPES,
} from '../events.js';
import { when } from '../ui.js';

const userRef = (id: string | null): Ref[] => (id === null ? [] : [{ kind: 'user', id }]);
const appRef = (id: string | null): Ref[] => (id === null ? [] : [{ kind: 'application', id }]);

function Person({ id, names }: { readonly id: string | null; readonly names: Names }) {
  if (id === null) return <span class="muted">—</span>;
  return <RefLink target={{ kind: 'user', id }} names={names} />;
}

function Application({ id, names }: { readonly id: string | null; readonly names: Names }) {
  if (id === null) return <span class="muted">—</span>;
  return <RefLink target={{ kind: 'application', id }} names={names} />;
}

function Context({ context }: { readonly context: unknown }) {
  if (context === null || typeof context !== 'object' || Object.keys(context).length === 0)
    return <span class="muted">—</span>;
  return (
    <dl class="context">
      {Object.entries(context as Record<string, unknown>).map(([key, value]) => (
        <div key={key}>
          <dt>{key}</dt>
          <dd>{typeof value === 'string' ? value : JSON.stringify(value)}</dd>
        </div>
      ))}
    </dl>
  );
}

function Fact({ label, children }: { readonly label: string; readonly children: ComponentChildren }) {
  return (
    <div>
      <dt>{label}</dt>
      <dd>{children}</dd>
    </div>
  );
}

function When({
  event,
  badge,
  bad,
}: {
  readonly event: AuditEvent;
  readonly badge: string;
  readonly bad: boolean;
}) {
  return (
    <p class="when">
      <time dateTime={event.createdAt}>{when(event.createdAt)}</time>
      <span class={`badge ${bad ? 'bad' : 'good'}`}>{badge}</span>
    </p>
  );
}

/**
 * Impersonation: subject tokens created and exchanges, with the refusal's reason as a sentence.
 *
 * @example
 * ```tsx
 * <ImpersonationEntries events={events} all={page.items} />
 * ```
 */
export function ImpersonationEntries(props: {
  readonly events: readonly AuditEvent[];
  /** Every event of the page: an exchange recorded before events carried their context takes it from its creation. */
  readonly all: readonly AuditEvent[];
}) {
  const names = useNames(
    props.events.flatMap((event) => [
      ...userRef(event.userId),
      ...userRef(event.actorId),
      ...appRef(event.applicationId),
    ]),
  );
  const contexts = new Map<string, unknown>();
  for (const event of props.all)
    if (event.type === 'subject_token.created')
      contexts.set(String(event.details.subjectTokenId), event.details.context);
  return (
    <ol class="timeline" id="timeline">
      {props.events.map((event) => {
        const refused = event.type === 'token_exchange.failed';
        const tokenId = event.details.subjectTokenId as string | undefined;
        const context =
          event.details.context !== undefined || tokenId === undefined
            ? event.details.context
            : contexts.get(tokenId);
        return (
          <li key={event.id} class={refused ? 'refused' : 'ok'} data-type={event.type}>
            <When event={event} badge={VIEW_TYPES.impersonation[event.type]!} bad={refused} />
            {refused ? (
              <p class="reason">{exchangeRefusal(event.reason, event.details.description)}</p>
            ) : null}
            <dl class="facts">
              <Fact label="Actor">
                <Person id={event.actorId} names={names} />
              </Fact>
              <Fact label="As user">
                <Person id={event.userId} names={names} />
              </Fact>
              <Fact label="Application">
                <Application id={event.applicationId} names={names} />
              </Fact>
              <Fact label="API">{(event.details.resource as string | undefined) ?? '—'}</Fact>
              {event.details.scope ? <Fact label="Scopes">{String(event.details.scope)}</Fact> : null}
              <Fact label="Context">
                <Context context={context} />
              </Fact>
            </dl>
          </li>
        );
      })}
    </ol>
  );
}

/** A change's sentence, its references by name. */
function Sentence({ phrase, names }: { readonly phrase: Phrase; readonly names: Names }) {
  return (
    <p class="change">
      {phrase.map((part, index) =>
        typeof part === 'string' ? (
          part
        ) : Array.isArray(part) ? (
          <span key={index}>
            {(part as readonly Ref[]).map((ref, at) => (
              <span key={ref.id}>
                {at > 0 ? (at === part.length - 1 ? ' and ' : ', ') : null}
                <RefLink target={ref} names={names} />
              </span>
            ))}
          </span>
        ) : (
          <RefLink key={index} target={part as Ref} names={names} />
        ),
      )}
      .
    </p>
  );
}

const refsOf = (phrase: Phrase | undefined): Ref[] =>
  (phrase ?? []).flatMap((part) =>
    typeof part === 'string' ? [] : Array.isArray(part) ? [...(part as readonly Ref[])] : [part as Ref],
  );

/**
 * Administration: every change made through the Management API.
 *
 * @example
 * ```tsx
 * <ChangeEntries events={events} />
 * ```
 */
export function ChangeEntries({ events }: { readonly events: readonly AuditEvent[] }) {
  const phrases = new Map(events.map((event) => [event.id, describeChange(event)]));
  const names = useNames(
    events.flatMap((event) => [
      ...userRef(event.actorId),
      ...appRef(event.applicationId),
      ...refsOf(phrases.get(event.id)),
    ]),
  );
  return (
    <ol class="timeline" id="changes">
      {events.map((event) => {
        const phrase = phrases.get(event.id);
        const fields = Array.isArray(event.details.fields) ? (event.details.fields as string[]) : [];
        return (
          <li key={event.id} class="ok" data-type={event.type}>
            <When event={event} badge={VIEW_TYPES.administration[event.type]!} bad={false} />
            {phrase === undefined ? null : <Sentence phrase={phrase} names={names} />}
            <dl class="facts">
              <Fact label="By">
                {event.actorId === null ? (
                  <>
                    the application <Application id={event.applicationId} names={names} />
                  </>
                ) : (
                  <Person id={event.actorId} names={names} />
                )}
              </Fact>
              {event.actorId === null ? null : (
                <Fact label="Through">
                  <Application id={event.applicationId} names={names} />
                </Fact>
              )}
              <Fact label="Fields">{fields.length > 0 ? fields.join(', ') : '—'}</Fact>
              <Fact label="Request">
                <code>{String(event.details.route ?? '—')}</code>
              </Fact>
            </dl>
          </li>
        );
      })}
    </ol>
  );
}

/**
 * Sign-in: refused and locked sign-ins. An identifier that names no account is not shown.
 *
 * @example
 * ```tsx
 * <SignInEntries events={events} />
 * ```
 */
export function SignInEntries({ events }: { readonly events: readonly AuditEvent[] }) {
  const names = useNames(
    events.flatMap((event) => [...userRef(event.userId), ...appRef(event.applicationId)]),
  );
  return (
    <ol class="timeline" id="sign-ins">
      {events.map((event) => (
        <li key={event.id} class="refused" data-type={event.type}>
          <When event={event} badge={VIEW_TYPES['sign-in'][event.type]!} bad={true} />
          <p class="reason">{signInRefusal(event)}</p>
          <dl class="facts">
            <Fact label="Account">
              {event.userId === null ? (
                <span class="muted">No such account (what was typed is not shown)</span>
              ) : (
                <Person id={event.userId} names={names} />
              )}
            </Fact>
            <Fact label="From address">{String(event.details.address ?? '—')}</Fact>
            <Fact label="Application">
              <Application id={event.applicationId} names={names} />
            </Fact>
            {typeof event.details.until === 'number' ? (
              <Fact label="Locked until">{when(new Date(event.details.until * 1000).toISOString())}</Fact>
            ) : null}
          </dl>
        </li>
      ))}
    </ol>
  );
}
