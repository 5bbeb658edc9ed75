import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { InProcessSignals } from '../../src/services/kit/signals.js';

function recordingLogger(): { errors: object[]; info(): void; warn(): void; error(obj: object): void } {
  const errors: object[] = [];
  return {
    errors,
    info: () => undefined,
    warn: () => undefined,
    error: (obj) => {
      errors.push(obj);
    },
  };
}

describe('InProcessSignals', () => {
  it('calls subscribers at once, in the order they subscribed, with the payload', () => {
    const signals = new InProcessSignals(recordingLogger());
    const seen: string[] = [];
    signals.subscribe('build.queued', ({ buildId }) => seen.push(`first ${buildId}`));
    signals.subscribe('build.queued', ({ buildId }) => seen.push(`second ${buildId}`));
    signals.subscribe('schedule.changed', () => seen.push('other signal'));
    void signals.publish('build.queued', { environmentId: 'e', buildId: 'b' });
    // Before any await: a sender that does not wait has still woken the subscriber.
    assert.deepEqual(seen, ['first b', 'second b']);
  });

  it('resolves once the subscribers have handled the signal, and at once without any', async () => {
    const signals = new InProcessSignals(recordingLogger());
    await signals.publish('https-redirect.changed', { environmentId: 'e' });
    let synced = false;
    signals.subscribe('https-redirect.changed', async () => {
      await new Promise((resolve) => setTimeout(resolve, 20));
      synced = true;
    });
    await signals.publish('https-redirect.changed', { environmentId: 'e' });
    assert.equal(synced, true);
  });

  it('logs a failing subscriber and still reaches the others; the sender sees no error', async () => {
    const logger = recordingLogger();
    const signals = new InProcessSignals(logger);
    let reached = false;
    signals.subscribe('environments.removed', () => {
      throw new Error('thrown');
    });
    signals.subscribe('environments.removed', () => Promise.reject(new Error('rejected')));
    signals.subscribe('environments.removed', () => {
      reached = true;
    });
    await signals.publish('environments.removed', { blobKeys: [] });
    assert.equal(reached, true);
    assert.equal(logger.errors.length, 2);
  });

  it('stops calling a subscriber that unsubscribed', async () => {
    const signals = new InProcessSignals(recordingLogger());
    let calls = 0;
    const unsubscribe = signals.subscribe('domain.active', () => {
      calls += 1;
    });
    await signals.publish('domain.active', { domains: ['a.example'] });
    unsubscribe();
    await signals.publish('domain.active', { domains: ['a.example'] });
    assert.equal(calls, 1);
  });
});
