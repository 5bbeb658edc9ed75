/** A build's log on the build page: the log viewer, given the build log's request and words. */
import { useCallback } from 'react';
import { usePortal } from '../portal/portal-context.js';
import { buildLabel } from './build-summary.js';
import { LogViewer, type LogViewerWords } from './log-viewer.js';

const WORDS: LogViewerWords = {
  following: 'Following the log as the build writes it…',
  ended: 'The whole log.',
  empty: 'This build wrote no log.',
};

/**
 * A build's log, streamed as it is written until the build has finished (for a finished build the
 * same request answers the whole log at once).
 */
export function BuildLog(props: { build: string }) {
  const { client } = usePortal();
  const follow = useCallback(
    (onText: (text: string) => void, signal: AbortSignal) =>
      client.followBuildLog(props.build, onText, signal),
    [client, props.build],
  );
  return (
    <LogViewer
      follow={follow}
      label="Build log"
      words={WORDS}
      downloadName={`build-${buildLabel(props.build)}.txt`}
    />
  );
}
