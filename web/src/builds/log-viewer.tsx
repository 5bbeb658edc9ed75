/**
 * A log to read: a build's (steps as sections that open and close, each with its duration) or a running
 * app's. It follows the newest line as the log is written unless the reader scrolls up or pauses;
 * colours are the program's own (ANSI), stderr lines are marked, lines are found by search, linked by
 * number (`#L123`) and the whole text downloaded. Only the rows in view are in the page, so a log of
 * 50,000 lines scrolls as lightly as one of 50.
 */
import {
  ActionIcon,
  Alert,
  Badge,
  Button,
  Checkbox,
  Group,
  Stack,
  Text,
  TextInput,
  Tooltip,
  VisuallyHidden,
} from '@mantine/core';
import {
  IconAlertTriangle,
  IconChevronDown,
  IconChevronRight,
  IconChevronUp,
  IconDownload,
  IconFoldDown,
  IconFoldUp,
  IconPlayerPause,
  IconPlayerPlay,
  IconSearch,
} from '@tabler/icons-react';
import { useVirtualizer } from '@tanstack/react-virtual';
import {
  useCallback,
  useDeferredValue,
  useEffect,
  useLayoutEffect,
  useMemo,
  useRef,
  useState,
  type CSSProperties,
  type KeyboardEvent,
  type MouseEvent,
} from 'react';
import { asApiError, type ApiError } from '../../../src/client/api-client.js';
import {
  formatDuration,
  formatElapsed,
  LogParser,
  markMatches,
  matchingLines,
  readableColor,
  type AnsiColor,
  type LogKind,
  type LogLine,
  type LogStep,
  type MarkedSpan,
} from './log-lines.js';
import './log-viewer.css';

/** What the viewer says of its stream: while it runs, once it has ended (with and without text). */
export interface LogViewerWords {
  readonly following: string;
  readonly ended: string;
  readonly empty: string;
}

export interface LogViewerProps {
  /**
   * Streams the log: calls `onText` with each chunk (chunks may split lines) and settles when the log
   * has ended; `signal` aborts it when the viewer goes. Keep its identity (useCallback) while the
   * same log is shown: a new `follow` reads the log again from the start.
   */
  readonly follow: (onText: (text: string) => void, signal: AbortSignal) => Promise<void>;
  /** The log region's accessible name, e.g. `Build log` (role="log"). */
  readonly label: string;
  readonly words: LogViewerWords;
  /** The downloaded file's name, e.g. `build-0123abcd.txt`. */
  readonly downloadName: string;
  /**
   * `build` (the default): steps, time since the first line. `runtime`: a running app's log, lines
   * with the writing build's column, no steps, the time of day.
   */
  readonly kind?: LogKind;
}

/** Row heights (px): a line, a step's header. Fixed: the virtualiser never measures. */
const ROW_PX = 20;
const STEP_PX = 28;
/** How close to the bottom (px) still counts as "at the bottom": the reader has not scrolled up. */
const STICK_PX = 24;
/** New text is shown at most this often (ms): a fast log is not rendered once per chunk. */
const RENDER_MS = 60;

const LINE_HASH = /^#L(\d+)$/;

function lineFromHash(hash: string): number | undefined {
  const match = LINE_HASH.exec(hash);
  const n = match === null ? Number.NaN : Number(match[1]);
  return Number.isSafeInteger(n) && n > 0 ? n : undefined;
}

/** A row of the list: a line (its index in the lines) or a step's header (-1 - the step's index). */
type Row = number;

const headerRow = (step: number): Row => -1 - step;
const stepOfRow = (row: Row): number => -1 - row;

export function LogViewer(props: LogViewerProps) {
  const { follow, label, words, downloadName, kind = 'build' } = props;

  // The parser grows in place; `version` makes each change a new state.
  const [log, setLog] = useState(() => ({ parser: new LogParser(kind), version: 0 }));
  const raw = useRef<string[]>([]);
  const [ended, setEnded] = useState(false);
  const [error, setError] = useState<ApiError>();
  const [attempt, setAttempt] = useState(0);

  const [open, setOpen] = useState<ReadonlyMap<number, boolean>>(new Map());
  const [query, setQuery] = useState('');
  const search = useDeferredValue(query);
  const [current, setCurrent] = useState(-1);
  const [onlyMatches, setOnlyMatches] = useState(false);
  const [target, setTarget] = useState<number | undefined>(() => lineFromHash(window.location.hash));
  /** A line (number) to bring into view once it has arrived and its step is open. */
  const [reveal, setReveal] = useState<number | undefined>(target);
  const [following, setFollowing] = useState(target === undefined);
  const paused = useRef(false);
  const lastTop = useRef(0);
  const scroller = useRef<HTMLDivElement>(null);

  useEffect(() => {
    const controller = new AbortController();
    const parser = new LogParser(kind);
    raw.current = [];
    setLog({ parser, version: 0 });
    setEnded(false);
    setError(undefined);
    setOpen(new Map());
    let timer: ReturnType<typeof setTimeout> | undefined;
    const show = () => {
      clearTimeout(timer);
      timer = undefined;
      setLog({ parser, version: parser.version });
    };
    follow((chunk) => {
      if (controller.signal.aborted) return;
      raw.current.push(chunk);
      if (parser.push(chunk) > 0) timer ??= setTimeout(show, RENDER_MS);
    }, controller.signal).then(
      () => {
        if (controller.signal.aborted) return;
        parser.end();
        show();
        setEnded(true);
      },
      (failure: unknown) => {
        if (controller.signal.aborted) return;
        parser.end();
        show();
        setError(asApiError(failure));
      },
    );
    return () => {
      controller.abort();
      clearTimeout(timer);
    };
  }, [follow, kind, attempt]);

  useEffect(() => {
    const onHash = () => {
      const n = lineFromHash(window.location.hash);
      setTarget(n);
      if (n !== undefined) setReveal(n);
    };
    window.addEventListener('hashchange', onHash);
    return () => {
      window.removeEventListener('hashchange', onHash);
    };
  }, []);

  const { parser } = log;
  const lines = parser.lines;
  const steps = parser.steps;
  const failedBuild = parser.outcome === 'failed';
  const stopped = ended || error !== undefined;

  /**
   * Running (or broken off): every step open, the running one last. Ended: the steps closed, but the
   * failed one and the one holding the line the address names.
   */
  const isOpen = useCallback(
    (step: LogStep) =>
      step.name === null ||
      (open.get(step.index) ??
        (!ended ||
          step.failed ||
          (target !== undefined && step.firstLine <= target && target <= step.lastLine))),
    [open, ended, target],
  );

  const matches = useMemo(() => matchingLines(lines, search), [log, search]);
  const filtering = onlyMatches && search !== '';

  const rows = useMemo(() => {
    const list: Row[] = [];
    let next = 0;
    for (const step of steps) {
      const first = step.firstLine - 1;
      const last = step.lastLine - 1;
      if (filtering) {
        while (next < matches.length && (matches[next] ?? 0) < first) next += 1;
        const start = next;
        while (next < matches.length && (matches[next] ?? 0) <= last) next += 1;
        if (next === start) continue;
        if (step.name !== null) list.push(headerRow(step.index));
        for (let m = start; m < next; m += 1) list.push(matches[m] ?? 0);
        continue;
      }
      if (step.name !== null) list.push(headerRow(step.index));
      if (isOpen(step)) for (let index = first; index <= last; index += 1) list.push(index);
    }
    return list;
  }, [log, isOpen, filtering, matches]);

  const estimateSize = useCallback((index: number) => ((rows[index] ?? 0) < 0 ? STEP_PX : ROW_PX), [rows]);
  const getItemKey = useCallback((index: number) => rows[index] ?? index, [rows]);
  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scroller.current,
    estimateSize,
    getItemKey,
    overscan: 30,
  });

  // Following: the newest line stays in view as lines come (and as steps close at the end).
  useLayoutEffect(() => {
    const element = scroller.current;
    if (!following || element === null) return;
    element.scrollTop = element.scrollHeight;
    lastTop.current = element.scrollTop;
  }, [rows, following]);

  // Once the log has ended, its finished steps close: the line the address names is brought back into view.
  useEffect(() => {
    if (ended && target !== undefined && !following) setReveal(target);
    // Only when the log ends (not each time the reader scrolls): `ended` alone.
  }, [ended]);

  // A line asked for (by the address, a line link, search): its step opened, then scrolled to.
  useEffect(() => {
    if (reveal === undefined) return;
    const index = reveal - 1;
    if (index >= lines.length) {
      if (stopped) setReveal(undefined);
      return;
    }
    const step = steps.find((s) => s.firstLine <= reveal && reveal <= s.lastLine);
    if (step !== undefined && !filtering && !isOpen(step)) {
      setOpen((before) => new Map(before).set(step.index, true));
      return;
    }
    const row = rows.indexOf(index);
    if (row < 0) {
      if (filtering) setOnlyMatches(false);
      else setReveal(undefined);
      return;
    }
    setFollowing(false);
    virtualizer.scrollToIndex(row, { align: 'center' });
    setReveal(undefined);
  }, [reveal, rows, log, stopped, filtering, isOpen, virtualizer, lines.length, steps]);

  const onScroll = () => {
    const element = scroller.current;
    if (element === null) return;
    const top = element.scrollTop;
    const atBottom = element.scrollHeight - top - element.clientHeight < STICK_PX;
    const up = top < lastTop.current - 1;
    lastTop.current = top;
    if (up && !atBottom) setFollowing(false);
    else if (atBottom && !paused.current) setFollowing(true);
  };

  const toggleFollowing = () => {
    paused.current = following;
    setFollowing(!following);
  };

  const goToMatch = (step: 1 | -1) => {
    if (matches.length === 0) return;
    const next =
      current < 0 ? (step > 0 ? 0 : matches.length - 1) : (current + step + matches.length) % matches.length;
    setCurrent(next);
    const index = matches[next];
    if (index !== undefined) setReveal(index + 1);
  };

  const onSearchKey = (event: KeyboardEvent<HTMLInputElement>) => {
    if (event.key === 'Enter') {
      event.preventDefault();
      goToMatch(event.shiftKey ? -1 : 1);
    } else if (event.key === 'Escape' && query !== '') {
      event.preventDefault();
      setQuery('');
      setCurrent(-1);
    }
  };

  const setAllOpen = (value: boolean) => {
    setOpen(new Map(steps.filter((s) => s.name !== null).map((s) => [s.index, value])));
  };

  const toggleStep = (step: LogStep) => {
    const value = !isOpen(step);
    setOpen((before) => new Map(before).set(step.index, value));
    if (value) return;
    // Closing the step that is being followed stops following it.
    if (!stopped && step.index === steps.length - 1) setFollowing(false);
  };

  const onLineLink = (event: MouseEvent<HTMLAnchorElement>, n: number) => {
    if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    // The address names the line without a navigation: the router's state is kept as it is.
    window.history.replaceState(window.history.state, '', `#L${String(n)}`);
    setTarget(n);
    setFollowing(false);
    paused.current = true;
  };

  const download = () => {
    const url = URL.createObjectURL(new Blob(raw.current, { type: 'text/plain;charset=utf-8' }));
    const anchor = document.createElement('a');
    anchor.href = url;
    anchor.download = downloadName;
    document.body.append(anchor);
    anchor.click();
    anchor.remove();
    setTimeout(() => {
      URL.revokeObjectURL(url);
    }, 10_000);
  };

  const startMs = lines.find((line) => line.ms !== undefined)?.ms;
  const currentLine = current >= 0 ? matches[current] : undefined;
  const named = steps.filter((s) => s.name !== null);
  const totalMs =
    startMs !== undefined && steps.at(-1)?.endMs !== undefined
      ? (steps.at(-1)?.endMs ?? 0) - startMs
      : undefined;

  const status =
    error !== undefined
      ? 'The log stopped.'
      : ended
        ? lines.length === 0
          ? words.empty
          : words.ended
        : words.following;

  return (
    <Stack className="lv-root" gap="xs">
      <Text role="status" size="sm" className="lv-muted">
        {status}
      </Text>
      {error !== undefined && (
        <Alert color="red" variant="light" icon={<IconAlertTriangle size={18} aria-hidden />} role="alert">
          <Group gap="sm" justify="space-between">
            <Text size="sm">{error.message}</Text>
            <Button
              size="xs"
              variant="default"
              onClick={() => {
                setAttempt((n) => n + 1);
              }}
            >
              Read the log again
            </Button>
          </Group>
        </Alert>
      )}

      <Group gap="xs" wrap="wrap" align="center">
        <TextInput
          type="search"
          size="xs"
          aria-label="Search the log"
          placeholder="Search the log"
          leftSection={<IconSearch size={14} aria-hidden />}
          value={query}
          onChange={(event) => {
            setQuery(event.currentTarget.value);
            setCurrent(-1);
          }}
          onKeyDown={onSearchKey}
          className="lv-search"
        />
        <Text size="xs" className="lv-muted" aria-live="polite" miw={search === '' ? 0 : '9ch'}>
          {search === ''
            ? ''
            : matches.length === 0
              ? 'No match'
              : current >= 0
                ? `${(current + 1).toLocaleString()} of ${matches.length.toLocaleString()}`
                : `${matches.length.toLocaleString()} ${matches.length === 1 ? 'line' : 'lines'}`}
        </Text>
        <Tooltip label="Previous match (Shift+Enter)">
          <ActionIcon
            variant="default"
            size="md"
            aria-label="Previous match"
            disabled={matches.length === 0}
            onClick={() => {
              goToMatch(-1);
            }}
          >
            <IconChevronUp size={16} aria-hidden />
          </ActionIcon>
        </Tooltip>
        <Tooltip label="Next match (Enter)">
          <ActionIcon
            variant="default"
            size="md"
            aria-label="Next match"
            disabled={matches.length === 0}
            onClick={() => {
              goToMatch(1);
            }}
          >
            <IconChevronDown size={16} aria-hidden />
          </ActionIcon>
        </Tooltip>
        <Checkbox
          size="xs"
          label="Matching lines only"
          checked={onlyMatches}
          onChange={(event) => {
            setOnlyMatches(event.currentTarget.checked);
          }}
        />
        <Group gap="xs" ml="auto" wrap="nowrap">
          {named.length > 0 && (
            <>
              <Tooltip label="Open all steps">
                <ActionIcon
                  variant="default"
                  size="md"
                  aria-label="Open all steps"
                  onClick={() => {
                    setAllOpen(true);
                  }}
                >
                  <IconFoldDown size={16} aria-hidden />
                </ActionIcon>
              </Tooltip>
              <Tooltip label="Close all steps">
                <ActionIcon
                  variant="default"
                  size="md"
                  aria-label="Close all steps"
                  onClick={() => {
                    setAllOpen(false);
                  }}
                >
                  <IconFoldUp size={16} aria-hidden />
                </ActionIcon>
              </Tooltip>
            </>
          )}
          {!stopped && (
            <Button
              size="xs"
              variant={following ? 'light' : 'default'}
              aria-pressed={following}
              leftSection={
                following ? (
                  <IconPlayerPause size={14} aria-hidden />
                ) : (
                  <IconPlayerPlay size={14} aria-hidden />
                )
              }
              onClick={toggleFollowing}
            >
              Follow newest
            </Button>
          )}
          <Button
            size="xs"
            variant="default"
            leftSection={<IconDownload size={14} aria-hidden />}
            disabled={lines.length === 0}
            onClick={download}
          >
            Download
          </Button>
        </Group>
      </Group>

      {(named.length > 0 || lines.length > 0) && (
        <Group gap="xs" className="lv-muted">
          {parser.outcome !== undefined ? (
            <Badge size="sm" color={failedBuild ? 'red' : 'green'} variant="filled">
              {failedBuild ? 'Failed' : 'Succeeded'}
            </Badge>
          ) : (
            !stopped &&
            kind === 'build' && (
              <Badge size="sm" color="blue" variant="filled">
                Running
              </Badge>
            )
          )}
          <Text size="xs" span>
            {lines.length.toLocaleString()} {lines.length === 1 ? 'line' : 'lines'}
            {named.length > 0 && ` · ${String(named.length)} ${named.length === 1 ? 'step' : 'steps'}`}
            {kind === 'build' && totalMs !== undefined && ` · ${formatDuration(totalMs)}`}
          </Text>
        </Group>
      )}

      {/* role="log" names the region; live announcements are off because an install writes hundreds of lines. */}
      <div
        ref={scroller}
        className="lv-scroll"
        role="log"
        aria-live="off"
        aria-label={label}
        aria-busy={!stopped}
        tabIndex={0}
        onScroll={onScroll}
      >
        {rows.length === 0 ? (
          <p className="lv-placeholder">
            {filtering
              ? 'No line matches the search.'
              : stopped
                ? 'No lines.'
                : 'Waiting for the first line…'}
          </p>
        ) : (
          <div className="lv-inner" style={{ height: virtualizer.getTotalSize() }}>
            {virtualizer.getVirtualItems().map((item) => {
              const row = rows[item.index] ?? 0;
              const style: CSSProperties = {
                height: item.size,
                transform: `translateY(${String(item.start)}px)`,
              };
              if (row < 0) {
                const step = steps[stepOfRow(row)];
                if (step === undefined) return null;
                return (
                  <StepHeader
                    key={item.key}
                    step={step}
                    open={filtering || isOpen(step)}
                    running={!stopped && step.index === steps.length - 1}
                    style={style}
                    onToggle={() => {
                      toggleStep(step);
                    }}
                  />
                );
              }
              const line = lines[row];
              if (line === undefined) return null;
              return (
                <LineRow
                  key={item.key}
                  line={line}
                  kind={kind}
                  startMs={startMs}
                  query={search}
                  current={row === currentLine}
                  target={line.n === target}
                  style={style}
                  onLink={onLineLink}
                />
              );
            })}
          </div>
        )}
      </div>
    </Stack>
  );
}

function StepHeader(props: {
  step: LogStep;
  open: boolean;
  running: boolean;
  style: CSSProperties;
  onToggle: () => void;
}) {
  const { step, open, running } = props;
  const count = step.lastLine - step.firstLine + 1;
  return (
    <div className="lv-row lv-step" style={props.style}>
      <button
        type="button"
        className="lv-step-button"
        aria-expanded={open}
        data-failed={step.failed ? '' : undefined}
        onClick={props.onToggle}
      >
        <IconChevronRight className="lv-chevron" size={14} aria-hidden />
        <span className="lv-step-name">{step.name}</span>
        {running && (
          <Badge component="span" size="xs" color="blue" variant="filled">
            <VisuallyHidden>, </VisuallyHidden>
            running
          </Badge>
        )}
        {step.failed && (
          <Badge component="span" size="xs" color="red" variant="filled">
            <VisuallyHidden>, </VisuallyHidden>
            failed
          </Badge>
        )}
        <span className="lv-step-info">
          <VisuallyHidden>, </VisuallyHidden>
          {count.toLocaleString()} {count === 1 ? 'line' : 'lines'}
        </span>
        {step.stderrLines > 0 && (
          <span className="lv-step-info lv-step-failed">
            <VisuallyHidden>, </VisuallyHidden>
            <span aria-hidden>! </span>
            {step.stderrLines.toLocaleString()} stderr
          </span>
        )}
        {step.durationMs !== undefined && (
          <span className="lv-step-duration">
            <VisuallyHidden>, took </VisuallyHidden>
            {formatDuration(step.durationMs)}
          </span>
        )}
      </button>
    </div>
  );
}

const MARKERS = { stdout: '', stderr: '!', atoll: '›' } as const;
const STREAM_NAMES = { stdout: '', stderr: 'stderr: ', atoll: 'Atoll: ' } as const;

function LineRow(props: {
  line: LogLine;
  kind: LogKind;
  startMs: number | undefined;
  query: string;
  current: boolean;
  target: boolean;
  style: CSSProperties;
  onLink: (event: MouseEvent<HTMLAnchorElement>, n: number) => void;
}) {
  const { line, kind, startMs } = props;
  const id = `L${String(line.n)}`;
  const spans = markMatches(line.spans, props.query);
  return (
    <div
      className="lv-row"
      id={id}
      style={props.style}
      data-stream={line.stream}
      data-current={props.current ? '' : undefined}
      data-target={props.target ? '' : undefined}
    >
      <span className="lv-gutter">
        <a
          className="lv-n"
          href={`#${id}`}
          tabIndex={-1}
          aria-label={`Line ${String(line.n)}`}
          onClick={(event) => {
            props.onLink(event, line.n);
          }}
        >
          {line.n}
        </a>
        <span className="lv-marker" title={line.stream} aria-hidden>
          {MARKERS[line.stream]}
        </span>
        <LineTime line={line} kind={kind} startMs={startMs} />
      </span>
      <span className="lv-text">
        {line.stream !== 'stdout' && <VisuallyHidden>{STREAM_NAMES[line.stream]}</VisuallyHidden>}
        {kind === 'runtime' && line.build !== undefined && line.build !== '' && (
          <span className="lv-build" title={`Written by build ${line.build}`}>
            {line.build}
          </span>
        )}
        {spans.map((span, index) => (
          <SpanText key={index} span={span} />
        ))}
      </span>
    </div>
  );
}

function LineTime(props: { line: LogLine; kind: LogKind; startMs: number | undefined }) {
  const { line, kind, startMs } = props;
  if (line.ms === undefined || line.time === undefined)
    return <span className={kind === 'runtime' ? 'lv-time lv-clock' : 'lv-time'} />;
  const iso = new Date(line.ms).toISOString();
  const shown =
    kind === 'runtime' || startMs === undefined
      ? new Date(line.ms).toLocaleTimeString(undefined, { hour12: false })
      : formatElapsed(line.ms - startMs);
  return (
    <time className={kind === 'runtime' ? 'lv-time lv-clock' : 'lv-time'} dateTime={iso} title={iso}>
      {shown}
    </time>
  );
}

/** A named colour from the viewer's palette (readable in both schemes), or the program's own rgb. */
function colorValue(color: AnsiColor): string {
  return color.startsWith('rgb(') ? color : `var(--lv-fg-${color})`;
}

/** A background colour, as a tint: the text over it keeps its contrast. */
function tintValue(color: AnsiColor): string {
  return `color-mix(in srgb, ${colorValue(color)} 18%, transparent)`;
}

function SpanText(props: { span: MarkedSpan }) {
  const { span } = props;
  const styled =
    span.fg !== undefined ||
    span.bg !== undefined ||
    span.bold === true ||
    span.dim === true ||
    span.italic === true ||
    span.underline === true ||
    span.strike === true ||
    span.inverse === true;
  if (!styled) return span.match === true ? <mark className="lv-match">{span.text}</mark> : <>{span.text}</>;
  const decorations = [span.underline === true && 'underline', span.strike === true && 'line-through'].filter(
    Boolean,
  );
  const style: Record<string, string | number> = {
    ...(span.bold === true && { fontWeight: 700 }),
    ...(span.italic === true && { fontStyle: 'italic' }),
    ...(decorations.length > 0 && { textDecorationLine: decorations.join(' ') }),
  };
  let className: string | undefined;
  if (span.inverse === true) {
    style.color = span.bg === undefined ? 'var(--lv-bg)' : colorValue(span.bg);
    style.backgroundColor = span.fg === undefined ? 'var(--mantine-color-text)' : colorValue(span.fg);
  } else {
    if (span.fg?.startsWith('rgb(') === true) {
      // The program's own colour, made readable on the log's background in each scheme (log-viewer.css).
      className = 'lv-rgb';
      style['--lv-rgb-light'] = readableColor(span.fg, 'light');
      style['--lv-rgb-dark'] = readableColor(span.fg, 'dark');
    } else if (span.fg !== undefined) style.color = colorValue(span.fg);
    else if (span.dim === true) style.color = 'var(--lv-muted)';
    if (span.bg !== undefined) style.backgroundColor = tintValue(span.bg);
  }
  if (span.match === true)
    return (
      <mark className="lv-match" style={{ ...style, color: undefined, backgroundColor: undefined }}>
        {span.text}
      </mark>
    );
  return (
    <span className={className} style={style}>
      {span.text}
    </span>
  );
}
