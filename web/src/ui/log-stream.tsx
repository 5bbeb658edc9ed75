/** A live log view shared by the build log and the runtime logs. */
import { useEffect, useLayoutEffect, useRef, useState } from 'react';
import { asApiError, type ApiError } from '../../../src/client/api-client.js';
import { LoadError } from './errors.js';

/** How close to the bottom (px) still counts as "at the bottom": the reader has not scrolled up. */
const STICK_PX = 24;

/** What a log view says of its stream: while it runs, once it has ended (with and without text). */
export interface LogWords {
  readonly label: string;
  readonly following: string;
  readonly ended: string;
  readonly empty: string;
}

/**
 * A log streamed as it is written (a build's, a running app's). It stays scrolled to the newest line
 * unless the reader scrolls up to read, and the stream is closed when the page is left. `follow`
 * must keep its identity (useCallback) while the same log is shown.
 */
export function LogStream(props: {
  follow: (onText: (text: string) => void, signal: AbortSignal) => Promise<void>;
  words: LogWords;
}) {
  const { follow, words } = props;
  const [text, setText] = useState('');
  const [ended, setEnded] = useState(false);
  const [error, setError] = useState<ApiError>();
  const pre = useRef<HTMLPreElement>(null);
  const stick = useRef(true);
  const [attempt, setAttempt] = useState(0);

  useEffect(() => {
    const controller = new AbortController();
    setText('');
    setEnded(false);
    setError(undefined);
    follow((chunk) => {
      setText((before) => before + chunk);
    }, controller.signal).then(
      () => {
        setEnded(true);
      },
      (failure: unknown) => {
        if (!controller.signal.aborted) setError(asApiError(failure));
      },
    );
    return () => {
      controller.abort();
    };
  }, [follow, attempt]);

  useLayoutEffect(() => {
    const element = pre.current;
    if (element !== null && stick.current) element.scrollTop = element.scrollHeight;
  }, [text]);

  const onScroll = () => {
    const element = pre.current;
    if (element === null) return;
    stick.current = element.scrollHeight - element.scrollTop - element.clientHeight < STICK_PX;
  };

  return (
    <>
      <p role="status" className="muted">
        {error !== undefined
          ? 'The log stopped.'
          : ended
            ? text === ''
              ? words.empty
              : words.ended
            : words.following}
      </p>
      <LoadError error={error} />
      {error !== undefined && (
        <button
          type="button"
          className="secondary"
          onClick={() => {
            setAttempt((n) => n + 1);
          }}
        >
          Read the log again
        </button>
      )}
      {/* role="log" names the region; live announcements are off because an install writes hundreds of lines. */}
      <pre
        ref={pre}
        className="log"
        role="log"
        aria-live="off"
        aria-label={words.label}
        aria-busy={!ended && error === undefined}
        tabIndex={0}
        onScroll={onScroll}
      >
        {text}
      </pre>
    </>
  );
}
