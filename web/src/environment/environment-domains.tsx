/**
 * The environment page's Domains tab: custom domains, the DNS records to publish and the changes of
 * the set, which the API takes whole.
 */
import { useQuery } from '@tanstack/react-query';
import { POLL_MS } from '../portal/queries.js';
import { useState, type SyntheticEvent } from 'react';
import {
  ApiError,
  resourceId,
  type ApiClient,
  type DomainMapping,
  type Operation,
} from '../../../src/client/api-client.js';
import { useAccount, usePortal } from '../portal/portal-context.js';
import { ConfirmButton } from '../ui/confirm-button.js';
import { CopyButton } from '../ui/copy-button.js';
import { FieldError, FormError, LoadError } from '../ui/errors.js';
import { formatTime } from '../ui/time.js';
import { useAction } from '../ui/use-action.js';
import { useEnvironmentTab } from './environment-tab-props.js';

/** One entry of a `:replace` body: only what the caller chooses, never the output fields. */
interface MappingRequest {
  readonly domain: string;
  readonly primary: boolean;
  readonly destinationDomainMapping: string;
}

/**
 * The environment's domains: each mapping's checks as they progress (polled), what to publish in DNS,
 * and the changes of the set. Every change sends the whole set, as `:replace` takes it.
 */
export function EnvironmentDomains() {
  const props = useEnvironmentTab();
  const { client } = usePortal();
  const { environment } = props;
  const canChange = useAccount(props.account)?.role !== 'viewer';
  const mappings = useQuery({
    queryKey: ['domain-mappings', environment.name],
    queryFn: () => client.listDomainMappings(environment.name),
    refetchInterval: POLL_MS,
  });
  const list = mappings.data;
  const onChanged = () => {
    void mappings.refetch();
    props.reload();
  };
  // One change of the set at a time: the page shows its refusal, whichever control started it.
  const change = useAction(
    (set: readonly MappingRequest[]) => replaceAndWait(client, environment.name, set),
    onChanged,
  );

  return (
    <>
      <section aria-labelledby="domains-heading">
        <h2 id="domains-heading">Domains</h2>
        <LoadError error={mappings.error} />
        {list === undefined ? (
          mappings.error === null && <p className="loading">Loading domains…</p>
        ) : list.length === 0 ? (
          <p className="empty">
            No domains yet. {canChange ? 'Add one below: ' : 'Once a developer or owner adds one, '}
            the page shows a TXT record to create to prove that the account controls the domain, then the DNS
            records that point the domain at the edge; once both are found, the domain serves this environment
            and gets a certificate.
          </p>
        ) : (
          list.map((m) => (
            <MappingCard
              key={m.name}
              mapping={m}
              all={list}
              canChange={canChange}
              changing={change.busy}
              onReplace={change.run}
              onChanged={onChanged}
            />
          ))
        )}
        {change.busy && <p role="status">Applying the change…</p>}
        <FormError error={change.error} />
      </section>
      {canChange && list !== undefined && (
        <AddDomainForm environment={environment.name} mappings={list} onAdded={onChanged} />
      )}
      {!canChange && <p className="muted">Viewers see the domains; developers and owners change them.</p>}
    </>
  );
}

/** What is sent back for the mappings that stay: only the fields a caller sets. */
function requestsOf(mappings: readonly DomainMapping[]): MappingRequest[] {
  return mappings
    .filter((m) => m.state !== 'DELETING')
    .map((m) => ({
      domain: m.domain,
      primary: m.primary,
      destinationDomainMapping: m.destinationDomainMapping,
    }));
}

/** Replaces the set and follows the operation until the new mappings were checked once. */
async function replaceAndWait(
  client: ApiClient,
  environment: string,
  set: readonly MappingRequest[],
): Promise<Operation> {
  const operation = await client.waitForOperation(
    await client.replaceDomainMappings(environment, [...set]),
    POLL_MS / 2,
  );
  if (operation.error !== undefined) throw new ApiError(0, operation.error, operation.error.message);
  return operation;
}

/** The domain of a mapping's resource name (`…/domainMappings/{domain}`). */
const domainOf = resourceId;

function stateBadge(state: string): string {
  if (state === 'ACTIVE') return 'badge live';
  if (state === 'FAILED') return 'badge failed';
  return 'badge running';
}

const STATE_LABELS: Readonly<Record<string, string>> = {
  CREATING: 'Checking…',
  PENDING_VERIFICATION: 'Waiting for DNS',
  ACTIVE: 'Active',
  DELETING: 'Removing…',
  FAILED: 'Failed',
};

function MappingCard(props: {
  mapping: DomainMapping;
  all: readonly DomainMapping[];
  canChange: boolean;
  changing: boolean;
  onReplace: (set: readonly MappingRequest[]) => void;
  onChanged: () => void;
}) {
  const { client } = usePortal();
  const { mapping, all } = props;
  const [notice, setNotice] = useState<string>();
  const action = useAction(
    (verb: 'verifyTxtRecord' | 'revalidate' | 'markPrimary') =>
      client.domainMappingAction(mapping.name, verb),
    (answer) => {
      setNotice(
        answer.state === 'ACTIVE'
          ? `${answer.domain} is active.`
          : answer.verifyTime === undefined
            ? `The TXT record was not found: ${answer.txtRecord.found || answer.stateReason}`
            : answer.stateReason,
      );
      props.onChanged();
    },
  );
  const run = (verb: 'verifyTxtRecord' | 'revalidate' | 'markPrimary') => {
    setNotice(undefined);
    action.run(verb);
  };
  const settled = mapping.state !== 'CREATING' && mapping.state !== 'DELETING';
  const waitingForTxt = mapping.verifyTime === undefined && settled && mapping.state !== 'FAILED';
  const others = all.filter((m) => m.name !== mapping.name);
  const remove = () => {
    props.onReplace(requestsOf(others));
  };
  const headingId = `domain-${mapping.domain}`;

  return (
    <article className="card" aria-labelledby={headingId}>
      <h3 id={headingId}>
        {mapping.domain}{' '}
        <span className={stateBadge(mapping.state)}>{STATE_LABELS[mapping.state] ?? mapping.state}</span>{' '}
        {mapping.primary && <span className="badge">Primary</span>}
      </h3>
      {mapping.stateReason !== '' && <p>{mapping.stateReason}</p>}
      <MappingFacts mapping={mapping} />
      {waitingForTxt && <TxtRecord mapping={mapping} />}
      {props.canChange && settled && (
        <>
          <div className="actions">
            {waitingForTxt && (
              <button
                type="button"
                disabled={action.busy}
                onClick={() => {
                  run('verifyTxtRecord');
                }}
              >
                Verify
              </button>
            )}
            {mapping.state !== 'FAILED' && (
              <button
                type="button"
                className="secondary"
                disabled={action.busy}
                onClick={() => {
                  run('revalidate');
                }}
              >
                Revalidate
              </button>
            )}
            {!mapping.primary && mapping.destinationDomainMapping === '' && mapping.state !== 'FAILED' && (
              <button
                type="button"
                className="secondary"
                disabled={action.busy}
                onClick={() => {
                  run('markPrimary');
                }}
              >
                Make primary
              </button>
            )}
          </div>
          {action.busy && <p role="status">Checking…</p>}
          {notice !== undefined && notice !== '' && <p role="status">{notice}</p>}
          <FormError error={action.error} />
          {!mapping.primary && (
            <RedirectForm
              key={mapping.destinationDomainMapping}
              mapping={mapping}
              all={all}
              busy={props.changing}
              onReplace={props.onReplace}
            />
          )}
          <ConfirmButton
            label="Remove domain"
            confirmLabel={`Remove ${mapping.domain}`}
            warning={`${mapping.domain} stops serving this environment once its route and certificate are gone.`}
            busy={props.changing}
            onConfirm={remove}
          />
        </>
      )}
    </article>
  );
}

/** What the platform knows of a mapping: where it redirects, its ownership, its DNS and its certificate. */
function MappingFacts({ mapping }: { mapping: DomainMapping }) {
  return (
    <dl className="facts">
      {mapping.destinationDomainMapping !== '' && (
        <>
          <dt>Redirects to</dt>
          <dd>
            {domainOf(mapping.destinationDomainMapping)}{' '}
            <span className="muted">
              ({STATE_LABELS[mapping.destinationDomainMappingState] ?? mapping.destinationDomainMappingState})
            </span>
          </dd>
        </>
      )}
      <dt>Ownership</dt>
      <dd>
        {mapping.verifyTime === undefined ? 'Not verified yet' : `Verified ${formatTime(mapping.verifyTime)}`}
      </dd>
      <dt>Points at the edge</dt>
      <dd>
        {mapping.dnsCheck.result}
        {mapping.dnsCheck.detail !== '' && ` — ${mapping.dnsCheck.detail}`}
        {mapping.dnsCheck.checkTime !== undefined && (
          <span className="muted"> (checked {formatTime(mapping.dnsCheck.checkTime)})</span>
        )}
      </dd>
      <dt>Certificate</dt>
      <dd>
        {mapping.certificate.state === 'NOT_CONFIGURED' ? 'Not configured' : mapping.certificate.state}
        {mapping.certificate.detail !== '' && ` — ${mapping.certificate.detail}`}
        {mapping.certificate.expireTime !== undefined && (
          <span className="muted"> (expires {formatTime(mapping.certificate.expireTime)})</span>
        )}
        {mapping.certificate.nextAttemptTime !== undefined && (
          <span className="muted"> (next attempt {formatTime(mapping.certificate.nextAttemptTime)})</span>
        )}
      </dd>
    </dl>
  );
}

/** The record that proves the account controls the domain, as the API names it. */
function TxtRecord(props: { mapping: DomainMapping }) {
  const { txtRecord } = props.mapping;
  const id = `txt-${props.mapping.domain}`;
  return (
    <div className="txt-record" role="group" aria-labelledby={id}>
      <p id={id}>
        Create this TXT record at your DNS provider, then press Verify (it is also looked up again every few
        minutes):
      </p>
      <dl className="facts">
        <dt>Type</dt>
        <dd>TXT</dd>
        <dt>Name</dt>
        <dd>
          <code data-testid="txt-name">{txtRecord.name}</code>
          <CopyButton text={txtRecord.name} label={`TXT record name of ${props.mapping.domain}`} />
        </dd>
        <dt>Value</dt>
        <dd>
          <code data-testid="txt-value">{txtRecord.value}</code>
          <CopyButton text={txtRecord.value} label={`TXT record value of ${props.mapping.domain}`} />
        </dd>
        {txtRecord.found !== '' && (
          <>
            <dt>Found instead</dt>
            <dd>{txtRecord.found}</dd>
          </>
        )}
        {txtRecord.checkTime !== undefined && (
          <>
            <dt>Last looked up</dt>
            <dd>{formatTime(txtRecord.checkTime)}</dd>
          </>
        )}
      </dl>
    </div>
  );
}

/** Serve the environment, or redirect (301) to another domain of the set. */
function RedirectForm(props: {
  mapping: DomainMapping;
  all: readonly DomainMapping[];
  busy: boolean;
  onReplace: (set: readonly MappingRequest[]) => void;
}) {
  const { mapping } = props;
  const current = mapping.destinationDomainMapping === '' ? '' : domainOf(mapping.destinationDomainMapping);
  const [target, setTarget] = useState(current);
  const choices = props.all.filter((m) => m.name !== mapping.name && m.state !== 'DELETING');
  if (choices.length === 0) return null;
  const submit = (event: SyntheticEvent) => {
    event.preventDefault();
    props.onReplace(
      requestsOf(props.all).map((m) =>
        m.domain === mapping.domain ? { ...m, destinationDomainMapping: target } : m,
      ),
    );
  };
  const id = `redirect-${mapping.domain}`;
  return (
    <form onSubmit={submit} className="actions redirect-form">
      <label htmlFor={id}>Redirect</label>
      <select
        id={id}
        value={target}
        onChange={(e) => {
          setTarget(e.target.value);
        }}
      >
        <option value="">None: serve the environment</option>
        {choices.map((m) => (
          <option key={m.name} value={m.domain}>
            to {m.domain}
          </option>
        ))}
      </select>
      <button type="submit" className="secondary" disabled={props.busy || target === current}>
        Change redirect
      </button>
    </form>
  );
}

/** A new domain, added to the set with the others sent back as they are. */
function AddDomainForm(props: {
  environment: string;
  mappings: readonly DomainMapping[];
  onAdded: () => void;
}) {
  const { client } = usePortal();
  const [domain, setDomain] = useState('');
  const [redirect, setRedirect] = useState('');
  const [primary, setPrimary] = useState(false);
  // Where the new entry sits in the request: the API names its violations by that index.
  const [index, setIndex] = useState(0);
  const add = useAction(
    (set: readonly MappingRequest[]) => replaceAndWait(client, props.environment, set),
    () => {
      setDomain('');
      setRedirect('');
      setPrimary(false);
      props.onAdded();
    },
  );
  const kept = requestsOf(props.mappings);
  const submit = (event: SyntheticEvent) => {
    event.preventDefault();
    // One primary per environment: choosing this one takes the mark off the others.
    const others = primary ? kept.map((m) => ({ ...m, primary: false })) : kept;
    setIndex(others.length);
    add.run([...others, { domain, primary, destinationDomainMapping: redirect }]);
  };
  const field = (name: string) => `domainMappings[${String(index)}].${name}`;
  const domainError = add.error?.violationOf(field('domain'));
  return (
    <form onSubmit={submit} className="card" aria-labelledby="add-domain-heading">
      <h3 id="add-domain-heading">Add a domain</h3>
      <label htmlFor="new-domain">Domain</label>
      <input
        id="new-domain"
        value={domain}
        placeholder="www.example.com"
        autoComplete="off"
        aria-invalid={domainError !== undefined}
        aria-describedby={domainError === undefined ? undefined : 'new-domain-error'}
        onChange={(e) => {
          setDomain(e.target.value);
        }}
      />
      <FieldError error={add.error} field={field('domain')} id="new-domain-error" />
      {kept.length > 0 && (
        <>
          <label htmlFor="new-domain-redirect">Redirect to</label>
          <select
            id="new-domain-redirect"
            value={redirect}
            onChange={(e) => {
              setRedirect(e.target.value);
            }}
          >
            <option value="">None: serve the environment</option>
            {kept.map((m) => (
              <option key={m.domain} value={m.domain}>
                {m.domain}
              </option>
            ))}
          </select>
          <FieldError error={add.error} field={field('destinationDomainMapping')} />
        </>
      )}
      <p>
        <input
          id="new-domain-primary"
          type="checkbox"
          checked={primary}
          onChange={(e) => {
            setPrimary(e.target.checked);
          }}
        />{' '}
        <label htmlFor="new-domain-primary" className="inline">
          Primary: the environment&apos;s URL uses this domain once it is active
        </label>
      </p>
      <FieldError error={add.error} field={field('primary')} />
      <FormError
        error={add.error}
        fields={[field('domain'), field('destinationDomainMapping'), field('primary')]}
      />
      {add.busy && <p role="status">Adding the domain and checking its records…</p>}
      <button type="submit" disabled={add.busy}>
        Add domain
      </button>
    </form>
  );
}
