/** The environment page's Runtime logs tab: the running app's log, streamed. */
import { Text, Title } from '@mantine/core';
import { useCallback } from 'react';
import { resourceId } from '../../../src/client/api-client.js';
import { LogViewer, type LogViewerWords } from '../builds/log-viewer.js';
import { usePortal } from '../portal/portal-context.js';
import { useEnvironmentTab } from './environment-tab-props.js';

/** The newest lines shown first; the platform keeps ATOLL_RUNTIME_LOG_LINES per environment. */
const TAIL = 500;

const WORDS: LogViewerWords = {
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
      <Title order={2} size="h4" id="runtime-logs-heading">
        Runtime logs
      </Title>
      <Text size="sm" c="dimmed" mb="sm">
        Output of the running app: each line with its time, stream and the build that wrote it. A static site
        is served by the edge and writes none.
      </Text>
      <LogViewer
        follow={follow}
        label="Runtime log"
        words={WORDS}
        kind="runtime"
        downloadName={`runtime-${resourceId(name)}.txt`}
      />
    </section>
  );
}
