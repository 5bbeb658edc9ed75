/**
 * Push webhooks of repository applications (docs/git.md): a delivery to `repository.webhookUrl`,
 * verified with the host's own signature scheme against the application's secret, builds the pushed
 * commit in every environment of that branch, and a pull request's makes, rebuilds or deletes its
 * preview environments (preview-environments.ts). No Basic auth: the signature is the credential. A bad
 * or missing one answers 401 (the same for an application that does not exist) and changes nothing;
 * failed checks are throttled per client address, as webhook tokens are.
 */
import { AtollError } from '../../domain/error-catalogue.js';
import {
  hasValidSignature,
  parseWebhookEvent,
  webhookSender,
  type WebhookHeaders,
} from '../../domain/git/repository-webhooks.js';
import { buildName } from '../../domain/resource-names.js';
import type { AppRef } from '../../contract/path-schemas.js';
import type { FailureThrottle } from '../kit/failure-throttle.js';
import type { Clock, SecretBox } from '../kit/platform-ports.js';
import type { SignalSender } from '../kit/signals.js';
import type { Store } from '../kit/store-port.js';
import { enqueueCommitBuild } from './build-enqueue.js';
import type { PreviewEnvironments } from './preview-environments.js';

/** What a delivery did: the builds it queued (by name), or why it built nothing. */
export interface PushAnswer {
  readonly builds: string[];
  readonly message: string;
}

const refused = () =>
  new AtollError(
    'WEBHOOK_SIGNATURE_INVALID',
    "the delivery is not signed with this application's webhook secret",
  );

export class GitPushService {
  constructor(
    private readonly deps: {
      readonly store: Store;
      readonly secretBox: SecretBox;
      readonly clock: Clock;
      readonly signals: SignalSender;
      readonly throttle: FailureThrottle;
      readonly previews: PreviewEnvironments;
    },
  ) {}

  async receive(
    ref: AppRef,
    headers: WebhookHeaders,
    body: Buffer,
    clientAddress: string,
  ): Promise<PushAnswer> {
    const { store, throttle } = this.deps;
    const fail = async (): Promise<never> => {
      await throttle.take(clientAddress);
      throw refused();
    };
    await throttle.assertAllowed(clientAddress);
    const delivery = webhookSender(headers);
    const account = await store.accounts.findByName(ref.account);
    const app = account && (await store.apps.find(account.id, ref.app));
    const repository = app?.sourceKind === 'repository' ? await store.apps.findRepository(app.id) : undefined;
    if (delivery === undefined || !app || !repository) return fail();
    const secret = this.deps.secretBox.open(repository.webhookSecretSealed);
    if (!hasValidSignature(delivery.sender, headers, body, secret)) return fail();

    let payload: unknown;
    try {
      payload = JSON.parse(body.toString('utf8')) as unknown;
    } catch {
      throw new AtollError(
        'MALFORMED_JSON',
        'the delivery body is not JSON (send the webhook as application/json)',
      );
    }
    const event = parseWebhookEvent(delivery.sender, delivery.eventName, payload);
    if (event.kind === 'ping') return { builds: [], message: 'pong: the webhook reaches Atoll' };
    if (event.kind === 'ignored') return { builds: [], message: event.why };
    if (event.kind === 'pullRequest') {
      const outcome =
        event.action === 'close'
          ? await this.deps.previews.close(ref, app, event)
          : await this.deps.previews.sync(ref, app, event);
      return { builds: outcome.builds, message: outcome.messages.join('; ') };
    }
    if (event.deleted)
      return { builds: [], message: `the branch ${event.branch} was deleted: nothing live stops` };
    if (event.skip)
      return { builds: [], message: 'the head commit asks for no build ([skip ci] or [skip deploy])' };

    const now = this.deps.clock.now();
    const names: string[] = [];
    for (const environment of await store.environments.listOfBranch(app.id, event.branch)) {
      const { build, queued } = await enqueueCommitBuild(
        store,
        environment,
        'PUSH',
        { sha: event.sha, message: event.message, author: event.author },
        now,
      );
      if (queued)
        void this.deps.signals.publish('build.queued', { environmentId: environment.id, buildId: build.id });
      names.push(buildName(ref.account, ref.app, environment.id, build.id));
    }
    return {
      builds: names,
      message:
        names.length === 0
          ? `no environment builds the branch ${event.branch}`
          : `${event.sha.slice(0, 12)} of ${event.branch}: ${String(names.length)} environment(s)`,
    };
  }
}
