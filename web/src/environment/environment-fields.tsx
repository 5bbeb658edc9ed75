/**
 * The fields of an environment, shared by the form that creates one (application page) and the one
 * that edits it (Overview tab): display name, WordPress install, and the shell variables editor (a row
 * per variable, Name and Value side by side, secrets masked; a `.env` file pasted or the whole list
 * edited as one).
 */
import {
  ActionIcon,
  Button,
  Checkbox,
  Fieldset,
  Group,
  PasswordInput,
  Stack,
  Text,
  Textarea,
  TextInput,
  Tooltip,
} from '@mantine/core';
import {
  IconArrowBackUp,
  IconClipboardText,
  IconEdit,
  IconLock,
  IconPlus,
  IconTrash,
} from '@tabler/icons-react';
import { useEffect, useRef, useState, type ClipboardEvent } from 'react';
import type { ApiError, Environment } from '../../../src/client/api-client.js';
import { fieldError, FieldError } from '../ui/errors.js';
import { parseDotenv, type DotenvProblem } from './dotenv.js';
import {
  applyDotenv,
  dotenvOfDrafts,
  draftVariables,
  isStoredSecret,
  keepStored,
  shellVariables,
  type ShellVariable,
  type VariableDraft,
} from './variable-drafts.js';
import './environment-fields.css';

export type { VariableDraft } from './variable-drafts.js';

export interface EnvironmentDraft {
  readonly displayName: string;
  readonly wpEnvironment: string;
  readonly shellVariables: readonly VariableDraft[];
}

/** An environment's fields as the API answered them, for the form that edits them. */
export function environmentDraft(environment: Environment): EnvironmentDraft {
  return {
    displayName: environment.displayName,
    wpEnvironment: environment.wpEnvironment,
    shellVariables: draftVariables(environment.shellVariables),
  };
}

/** The draft as the API takes it (create or update). */
export function environmentBody(draft: EnvironmentDraft): {
  displayName: string;
  wpEnvironment: string;
  shellVariables: ShellVariable[];
} {
  return {
    displayName: draft.displayName,
    wpEnvironment: draft.wpEnvironment,
    shellVariables: shellVariables(draft.shellVariables),
  };
}

/** The fields of `draft` the API may name in a refusal; a form shows these next to their control. */
export function draftFields(draft: EnvironmentDraft): string[] {
  return [
    'displayName',
    'wpEnvironment',
    'shellVariables',
    ...draft.shellVariables.flatMap((_, i) => [
      `shellVariables[${String(i)}].key`,
      `shellVariables[${String(i)}].value`,
    ]),
  ];
}

/**
 * The display name, the WordPress install and the shell variables editor of an environment, for
 * creating one and for editing it. The rules are the API's: its refusals show under the field they
 * name. `idPrefix` keeps two editors on a page apart.
 */
export function EnvironmentFields(props: {
  idPrefix: string;
  draft: EnvironmentDraft;
  onChange: (draft: EnvironmentDraft) => void;
  error: ApiError | undefined;
}) {
  const { draft, onChange, error, idPrefix } = props;
  return (
    <>
      <TextInput
        id={`${idPrefix}-display-name`}
        className="environment-field"
        label="Display name"
        value={draft.displayName}
        error={fieldError(error, 'displayName')}
        onChange={(e) => {
          onChange({ ...draft, displayName: e.currentTarget.value });
        }}
      />
      <TextInput
        id={`${idPrefix}-wp-environment`}
        className="environment-field"
        label="WordPress install (optional)"
        description="The WordPress environment this front end reads its content from."
        value={draft.wpEnvironment}
        error={fieldError(error, 'wpEnvironment')}
        onChange={(e) => {
          onChange({ ...draft, wpEnvironment: e.currentTarget.value });
        }}
      />
      <ShellVariablesEditor
        idPrefix={idPrefix}
        variables={draft.shellVariables}
        onChange={(shellVariables) => {
          onChange({ ...draft, shellVariables });
        }}
        error={error}
      />
    </>
  );
}

/**
 * The accessible names of row `i`'s controls: the first row's are plain ("Name", "Value"), as a form
 * with one variable reads best; the others say which variable they belong to.
 */
function rowLabel(label: string, i: number): string {
  return i === 0 ? label : `${label} of variable ${String(i + 1)}`;
}

/** While the list is edited as `.env` text: the text, and the rows it started from. */
interface TextMode {
  readonly kind: 'paste' | 'bulk';
  readonly text: string;
  readonly base: readonly VariableDraft[];
  readonly problems: readonly DotenvProblem[];
}

let nextRowId = 0;

/**
 * The shell variables: one row per variable, or (Paste .env, Bulk edit) a `.env` textarea whose text
 * is applied to the rows as it is typed, so that saving the form saves what the text says.
 */
function ShellVariablesEditor(props: {
  idPrefix: string;
  variables: readonly VariableDraft[];
  onChange: (variables: readonly VariableDraft[]) => void;
  error: ApiError | undefined;
}) {
  const { variables, onChange, error, idPrefix } = props;
  const [text, setText] = useState<TextMode>();
  const textarea = useRef<HTMLTextAreaElement>(null);
  const textOpen = text !== undefined;
  // Focus goes to the textarea when it opens, and back to the button that opened it when it closes.
  const opener = useRef<TextMode['kind']>(undefined);
  const pasteButton = useRef<HTMLButtonElement>(null);
  const bulkButton = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (textOpen) textarea.current?.focus();
    else if (opener.current !== undefined)
      (opener.current === 'bulk'
        ? (bulkButton.current ?? pasteButton.current)
        : pasteButton.current
      )?.focus();
  }, [textOpen]);
  // Rows keep a React key of their own so that removing one does not move focus or typing to another.
  const rowIds = useRef<number[]>([]);
  while (rowIds.current.length < variables.length) rowIds.current.push(nextRowId++);
  rowIds.current.length = variables.length;

  const setRow = (index: number, row: VariableDraft) => {
    onChange(variables.map((v, j) => (j === index ? row : v)));
  };
  const remove = (index: number) => {
    rowIds.current.splice(index, 1);
    onChange(variables.filter((_, j) => j !== index));
  };
  const openText = (kind: TextMode['kind']) => {
    opener.current = kind;
    setText({ kind, text: kind === 'bulk' ? dotenvOfDrafts(variables) : '', base: variables, problems: [] });
  };
  const typeText = (mode: TextMode, value: string) => {
    const parsed = parseDotenv(value);
    setText({ ...mode, text: value, problems: parsed.problems });
    // Lines that cannot be read hold the rows as they were; the form cannot be sent meanwhile.
    textarea.current?.setCustomValidity(parsed.problems.length > 0 ? problemsText(parsed.problems) : '');
    if (parsed.problems.length === 0) {
      rowIds.current = [];
      onChange(applyDotenv(mode.base, parsed.entries, mode.kind === 'bulk'));
    }
  };
  // A `.env` file pasted into a Name field is read as one, into rows.
  const pasteInto = (index: number) => (event: ClipboardEvent<HTMLInputElement>) => {
    const pasted = event.clipboardData.getData('text');
    if (!/[=\n]/.test(pasted)) return;
    const parsed = parseDotenv(pasted);
    const row = variables[index];
    if (parsed.problems.length > 0 || parsed.entries.length === 0 || row === undefined) return;
    if (parsed.entries.length === 1 && row.key === '' && !pasted.includes('\n')) {
      // One KEY=value into an empty row: that row, whatever the value is.
      const [entry] = parsed.entries;
      if (entry === undefined) return;
      event.preventDefault();
      setRow(index, { ...row, key: entry.key, value: entry.value });
      return;
    }
    event.preventDefault();
    rowIds.current = [];
    onChange(applyDotenv(variables, parsed.entries, false));
  };

  return (
    <Fieldset legend="Shell variables" className="variables">
      <Stack gap="sm">
        <Text size="sm" c="dimmed">
          The build and the running app see each variable. A secret&apos;s value is never shown again once
          saved: it reads as ******** and is kept until you replace it.
        </Text>
        {text !== undefined ? (
          <>
            <Textarea
              ref={textarea}
              id={`${idPrefix}-dotenv`}
              label={text.kind === 'bulk' ? 'Variables as .env' : 'Paste a .env file'}
              description={
                text.kind === 'bulk'
                  ? 'One KEY=value a line. Secrets read ******** and keep their value unless you write a new one; a line removed removes its variable.'
                  : 'KEY=value lines (export, quotes and # comments are understood). A key already listed takes the pasted value; mark secrets after.'
              }
              className="dotenv"
              autosize
              minRows={6}
              maxRows={20}
              spellCheck={false}
              autoComplete="off"
              value={text.text}
              error={text.problems.length > 0 ? problemsText(text.problems) : undefined}
              onChange={(e) => {
                typeText(text, e.currentTarget.value);
              }}
            />
            <Group gap="sm">
              <Button
                variant="default"
                onClick={() => {
                  // Lines it cannot read keep the text open, their problems said under it.
                  if (text.problems.length > 0) textarea.current?.focus();
                  else setText(undefined);
                }}
              >
                Done
              </Button>
              <Button
                variant="subtle"
                onClick={() => {
                  rowIds.current = [];
                  onChange(text.base);
                  setText(undefined);
                }}
              >
                Cancel
              </Button>
            </Group>
          </>
        ) : (
          <>
            {variables.length === 0 ? (
              <Text size="sm">None yet.</Text>
            ) : (
              <div className="variable-rows">
                <div className="variable-row variable-head" aria-hidden>
                  <span>Name</span>
                  <span>Value</span>
                  <span>Secret</span>
                </div>
                {variables.map((variable, i) => (
                  <VariableRow
                    key={rowIds.current[i]}
                    idPrefix={`${idPrefix}-variable-${String(i)}`}
                    index={i}
                    variable={variable}
                    error={error}
                    onChange={(row) => {
                      setRow(i, row);
                    }}
                    onRemove={() => {
                      remove(i);
                    }}
                    onPaste={pasteInto(i)}
                  />
                ))}
              </div>
            )}
            <FieldError error={error} field="shellVariables" />
            <Group gap="xs">
              <Button
                variant="default"
                leftSection={<IconPlus size={16} aria-hidden />}
                onClick={() => {
                  onChange([...variables, { key: '', value: '', secret: false }]);
                }}
              >
                Add a variable
              </Button>
              <Button
                ref={pasteButton}
                variant="subtle"
                leftSection={<IconClipboardText size={16} aria-hidden />}
                onClick={() => {
                  openText('paste');
                }}
              >
                Paste .env
              </Button>
              {variables.length > 0 && (
                <Button
                  ref={bulkButton}
                  variant="subtle"
                  leftSection={<IconEdit size={16} aria-hidden />}
                  onClick={() => {
                    openText('bulk');
                  }}
                >
                  Bulk edit
                </Button>
              )}
            </Group>
          </>
        )}
      </Stack>
    </Fieldset>
  );
}

function problemsText(problems: readonly DotenvProblem[]): string {
  return problems.map((p) => `Line ${String(p.line)}: ${p.message}`).join('; ');
}

/**
 * One variable: Name and Value side by side (stacked on a phone), whether it is secret, and its
 * removal. A secret read back from the API stays masked and locked until "Replace value".
 */
function VariableRow(props: {
  idPrefix: string;
  index: number;
  variable: VariableDraft;
  error: ApiError | undefined;
  onChange: (row: VariableDraft) => void;
  onRemove: () => void;
  onPaste: (event: ClipboardEvent<HTMLInputElement>) => void;
}) {
  const { variable, index: i, error, onChange, idPrefix } = props;
  const n = String(i);
  const stored = isStoredSecret(variable);
  const valueInput = useRef<HTMLInputElement>(null);
  // "Replace value" swaps the locked field for an empty one: the typing goes there next.
  const [focusValue, setFocusValue] = useState(false);
  useEffect(() => {
    if (!focusValue || stored) return;
    valueInput.current?.focus();
    setFocusValue(false);
  }, [focusValue, stored]);
  const labelClass = { label: 'variable-label' };
  const valueProps = {
    id: `${idPrefix}-value`,
    label: rowLabel('Value', i),
    classNames: labelClass,
    className: 'variable-input',
    error: fieldError(error, `shellVariables[${n}].value`),
    value: variable.value,
    autoComplete: 'off',
    spellCheck: false,
  };
  return (
    <div className="variable-row">
      <TextInput
        id={`${idPrefix}-key`}
        className="variable-key"
        classNames={labelClass}
        label={rowLabel('Name', i)}
        value={variable.key}
        readOnly={stored}
        autoComplete="off"
        spellCheck={false}
        error={fieldError(error, `shellVariables[${n}].key`)}
        onPaste={props.onPaste}
        onChange={(e) => {
          onChange({ ...variable, key: e.currentTarget.value });
        }}
      />
      <Stack className="variable-value" gap={4} align="flex-start">
        {stored ? (
          <TextInput
            {...valueProps}
            readOnly
            leftSection={<IconLock size={16} aria-hidden />}
            // Said on hover and to screen readers (a visible description would push the field out of line).
            title="Stored secret: never shown, kept until replaced"
            rightSectionWidth="auto"
            rightSectionPointerEvents="all"
            rightSection={
              <Button
                size="compact-sm"
                variant="default"
                mr={4}
                aria-label={rowLabel('Replace value', i)}
                onClick={() => {
                  setFocusValue(true);
                  onChange({ ...variable, value: '' });
                }}
              >
                Replace value
              </Button>
            }
          />
        ) : variable.secret ? (
          <PasswordInput
            {...valueProps}
            ref={valueInput}
            visibilityToggleFocusable
            visibilityToggleButtonProps={{ 'aria-label': `Show ${rowLabel('Value', i).toLowerCase()}` }}
            onChange={(e) => {
              onChange({ ...variable, value: e.currentTarget.value });
            }}
          />
        ) : variable.value.includes('\n') ? (
          // A multi-line value (a certificate, a key): an input would drop its line breaks.
          <Textarea
            {...valueProps}
            autosize
            minRows={1}
            maxRows={8}
            onChange={(e) => {
              onChange({ ...variable, value: e.currentTarget.value });
            }}
          />
        ) : (
          <TextInput
            {...valueProps}
            onChange={(e) => {
              onChange({ ...variable, value: e.currentTarget.value });
            }}
          />
        )}
        {variable.stored !== undefined && !stored && (
          <Button
            size="compact-sm"
            variant="subtle"
            color="gray"
            className="variable-keep"
            leftSection={<IconArrowBackUp size={14} aria-hidden />}
            aria-label={rowLabel('Keep the stored value', i)}
            onClick={() => {
              onChange(keepStored(variable));
            }}
          >
            Keep the stored value
          </Button>
        )}
      </Stack>
      <Checkbox
        className="variable-secret"
        classNames={labelClass}
        label={i === 0 ? 'Secret' : `Secret (variable ${String(i + 1)})`}
        checked={variable.secret}
        onChange={(e) => {
          // Made plain, a stored secret needs its value typed: the API never gives it back.
          const secret = e.currentTarget.checked;
          onChange(stored && !secret ? { ...variable, secret, value: '' } : { ...variable, secret });
        }}
      />
      <Tooltip label="Remove this variable">
        <ActionIcon
          variant="subtle"
          color="red"
          size="lg"
          className="variable-remove"
          aria-label={`Remove variable ${String(i + 1)}`}
          onClick={props.onRemove}
        >
          <IconTrash size={18} aria-hidden />
        </ActionIcon>
      </Tooltip>
    </div>
  );
}
