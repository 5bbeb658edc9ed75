/**
 * The fields of an environment, shared by the form that creates one (application page) and the one
 * that edits it (Overview tab).
 */
import type { ApiError } from '../../../src/client/api-client.js';
import { FieldError } from '../ui/errors.js';

/** A shell variable as the editor holds it; a secret one read back has the value `********`. */
export interface VariableDraft {
  readonly key: string;
  readonly value: string;
  readonly secret: boolean;
}

export interface EnvironmentDraft {
  readonly displayName: string;
  readonly wpEnvironment: string;
  readonly shellVariables: readonly VariableDraft[];
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
  const setVariable = (index: number, change: Partial<VariableDraft>) => {
    onChange({
      ...draft,
      shellVariables: draft.shellVariables.map((v, j) => (j === index ? { ...v, ...change } : v)),
    });
  };
  const id = (name: string) => `${idPrefix}-${name}`;

  return (
    <>
      <label htmlFor={id('display-name')}>Display name</label>
      <input
        id={id('display-name')}
        value={draft.displayName}
        onChange={(e) => {
          onChange({ ...draft, displayName: e.target.value });
        }}
      />
      <FieldError error={error} field="displayName" />
      <label htmlFor={id('wp-environment')}>WordPress install (optional)</label>
      <input
        id={id('wp-environment')}
        value={draft.wpEnvironment}
        onChange={(e) => {
          onChange({ ...draft, wpEnvironment: e.target.value });
        }}
      />
      <FieldError error={error} field="wpEnvironment" />
      <fieldset>
        <legend>Shell variables</legend>
        {draft.shellVariables.length === 0 && (
          <p className="muted">None. The build and the running app see each variable you add here.</p>
        )}
        {draft.shellVariables.map((variable, i) => {
          const n = String(i);
          return (
            <div className="variable" key={i}>
              <label htmlFor={id(`variable-key-${n}`)}>Name</label>
              <input
                id={id(`variable-key-${n}`)}
                value={variable.key}
                onChange={(e) => {
                  setVariable(i, { key: e.target.value });
                }}
              />
              <FieldError error={error} field={`shellVariables[${n}].key`} />
              <label htmlFor={id(`variable-value-${n}`)}>Value</label>
              <input
                id={id(`variable-value-${n}`)}
                value={variable.value}
                type={variable.secret ? 'password' : 'text'}
                onChange={(e) => {
                  setVariable(i, { value: e.target.value });
                }}
              />
              <FieldError error={error} field={`shellVariables[${n}].value`} />
              <label className="inline">
                <input
                  type="checkbox"
                  checked={variable.secret}
                  onChange={(e) => {
                    setVariable(i, { secret: e.target.checked });
                  }}
                />{' '}
                Secret (masked in every answer and log)
              </label>
              <button
                type="button"
                className="secondary"
                onClick={() => {
                  onChange({ ...draft, shellVariables: draft.shellVariables.filter((_, j) => j !== i) });
                }}
              >
                Remove
              </button>
            </div>
          );
        })}
        <FieldError error={error} field="shellVariables" />
        <button
          type="button"
          className="secondary"
          onClick={() => {
            onChange({
              ...draft,
              shellVariables: [...draft.shellVariables, { key: '', value: '', secret: false }],
            });
          }}
        >
          Add a variable
        </button>
      </fieldset>
    </>
  );
}
