/** The environment page's Runtime logs tab: the running app's log, streamed. */
import { useCallback } from 'react';
import { usePortal } from '../portal/portal-context.js';
import { LogStream, type LogWords } from '../ui/log-stream.js';
import { useEnvironmentTab } from './environment-tab-props.js';

/** The newest lines shown first; the platform keeps ATOLL_RUNTIME_LOG_LINES per environment. */
const TAIL = 500;

const WORDS: LogWords = {
  label: 'Runtime log',
  following: `The newest ${String(TAIL)} lines, then each line as the app writes it.`,
  ended: 'The log stream ended; read it again to follow it.',
  empty: 'The log stream ended; read it again to follow it.',
};

/**
 * What the environment's server app writes while it runs (stdout, stderr, and the platform's restarts),
 * streamed while the tab is open. A static site has no process, so nothing comes.
 */
export function RuntimeLogsTab() {
  const props = useEnvironmentTab();
  const { client } = usePortal();
  const name = props.environment.name;
  const follow = useCallback(
    (onText: (text: string) => void, signal: AbortSignal) =>
      client.followRuntimeLog(name, TAIL, onText, signal),
    [client, name],
  );
  return (
    <section aria-labelledby="runtime-logs-heading">
      <h2 id="runtime-logs-heading">Runtime logs</h2>
      <p className="muted">
        Output of the running app: each line with its time, stream and the build that wrote it. A static site
        is served by the edge and writes none.
      </p>
      <LogStream follow={follow} words={WORDS} />
    </section>
  );
}
