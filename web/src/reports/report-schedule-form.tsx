/** The form that creates or changes a report schedule, with the rules a user can be told at once. */
import { useState, type SyntheticEvent } from 'react';
import {
  ApiError,
  type ReportSchedule,
  type ReportScheduleFields,
  type ReportTemplate,
} from '../../../src/client/api-client.js';
import { usePortal } from '../portal/portal-context.js';
import { FieldError, FormError } from '../ui/errors.js';
import { useAction } from '../ui/use-action.js';
import { currentOffset, fromLocalInput, toLocalInput, tomorrowMorning } from './local-date-time.js';

/** A schedule as the form holds it: text as typed, the date as the datetime-local input has it. */
interface ScheduleDraft {
  readonly title: string;
  readonly templateUuid: string;
  readonly unit: string;
  readonly value: string;
  readonly next: string;
  readonly recipients: readonly { readonly name: string; readonly email: string }[];
  readonly sections: readonly string[];
}

const UNITS = [
  { unit: 'DAYS', label: 'Every 7 or 14 days', valueLabel: 'Days between reports' },
  { unit: 'MONTHLY', label: 'Monthly', valueLabel: 'Day of the month' },
];

function draftOf(schedule: ReportSchedule): ScheduleDraft {
  return {
    title: schedule.title,
    templateUuid: schedule.template_uuid,
    unit: schedule.frequency.unit,
    value: String(schedule.frequency.value),
    next: toLocalInput(schedule.next_scheduled_date),
    recipients: schedule.recipients.map((r) => ({ name: r.name, email: r.email })),
    sections: schedule.sections,
  };
}

function newDraft(template: ReportTemplate | undefined): ScheduleDraft {
  return {
    title: '',
    templateUuid: template?.template_uuid ?? '',
    unit: 'DAYS',
    value: '7',
    next: tomorrowMorning(),
    recipients: [{ name: '', email: '' }],
    sections: template?.sections.map((s) => s.name) ?? [],
  };
}

/** The draft in the API's field names. A value that is not a number goes as typed, for the API to name. */
function fieldsOf(draft: ScheduleDraft): Required<Omit<ReportScheduleFields, 'site_id'>> {
  return {
    title: draft.title.trim(),
    template_uuid: draft.templateUuid,
    frequency: { unit: draft.unit, value: Number(draft.value) },
    next_scheduled_date: fromLocalInput(draft.next) ?? draft.next,
    recipients: draft.recipients.map((r) => ({ name: r.name.trim(), email: r.email.trim() })),
    sections: draft.sections,
  };
}

/** What an edit changed, for a PATCH of only that: an untouched date keeps the offset it was given in. */
function changedFields(before: ScheduleDraft, after: ScheduleDraft): ReportScheduleFields {
  const was = fieldsOf(before);
  const now = fieldsOf(after);
  const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
  return {
    ...(now.title !== was.title && { title: now.title }),
    ...(now.template_uuid !== was.template_uuid && { template_uuid: now.template_uuid }),
    ...(!same(now.frequency, was.frequency) && { frequency: now.frequency }),
    ...(after.next !== before.next && { next_scheduled_date: now.next_scheduled_date }),
    ...(!same(now.recipients, was.recipients) && { recipients: now.recipients }),
    ...(!same(now.sections, was.sections) && { sections: now.sections }),
  };
}

/**
 * The rules a user can be told before anything is sent, in the report API's error shape so they
 * show where its own refusals do. The API checks every rule again and stays the judge.
 */
function obviousMistakes(draft: ScheduleDraft): ApiError | undefined {
  const errors: { resource: string; field: string; message: string }[] = [];
  const add = (field: string, message: string) => errors.push({ resource: 'schedule', field, message });
  if (draft.title.trim() === '') add('title', 'Give the schedule a title: it is the subject of the e-mail.');
  if (!/^\d+$/.test(draft.value.trim())) add('frequency.value', 'Enter a whole number.');
  if (fromLocalInput(draft.next) === undefined) add('next_scheduled_date', 'Choose a date and a time.');
  if (draft.recipients.length === 0) add('recipients', 'Add at least one recipient.');
  if (draft.sections.length === 0) add('sections', 'Choose at least one section.');
  if (errors.length === 0) return undefined;
  return new ApiError(400, undefined, 'Check the fields marked below.', errors);
}

/** The fields the form shows a refusal next to; FormError shows any other as an alert. */
function shownFields(draft: ScheduleDraft): string[] {
  return [
    'title',
    'template_uuid',
    'frequency',
    'frequency.unit',
    'frequency.value',
    'next_scheduled_date',
    'recipients',
    'sections',
    ...draft.recipients.flatMap((_, i) => [
      `recipients[${String(i)}]`,
      `recipients[${String(i)}].name`,
      `recipients[${String(i)}].email`,
    ]),
    ...draft.sections.map((_, i) => `sections[${String(i)}]`),
  ];
}

const capitalised = (name: string) => `${name.charAt(0).toUpperCase()}${name.slice(1)}`;

/**
 * A report schedule's form, to create one (no `schedule`) or to change one (a PATCH of what
 * changed). The report API's refusals show under the field they name.
 */
export function ReportScheduleForm(props: {
  idPrefix: string;
  siteId: string;
  templates: readonly ReportTemplate[];
  schedule?: ReportSchedule;
  onSaved: (schedule: ReportSchedule | undefined) => void;
  onCancel?: () => void;
}) {
  const { client } = usePortal();
  const { schedule, templates, idPrefix } = props;
  const [original] = useState(() => (schedule === undefined ? undefined : draftOf(schedule)));
  const [draft, setDraft] = useState<ScheduleDraft>(() => original ?? newDraft(templates[0]));
  const [mistakes, setMistakes] = useState<ApiError>();
  const [created, setCreated] = useState(false);
  const save = useAction(
    async (): Promise<ReportSchedule | undefined> => {
      if (original === undefined || schedule === undefined)
        return client.createReportSchedule({ site_id: props.siteId, ...fieldsOf(draft) });
      const changes = changedFields(original, draft);
      if (Object.keys(changes).length === 0) return undefined;
      return client.updateReportSchedule(schedule.schedule_id, changes);
    },
    (saved) => {
      if (schedule === undefined) {
        setCreated(true);
        setDraft(newDraft(templates.find((t) => t.template_uuid === draft.templateUuid)));
      }
      props.onSaved(saved);
    },
  );
  const error = mistakes ?? save.error;
  const change = (next: Partial<ScheduleDraft>) => {
    setMistakes(undefined);
    setCreated(false);
    setDraft({ ...draft, ...next });
  };
  const submit = (event: SyntheticEvent) => {
    event.preventDefault();
    const found = obviousMistakes(draft);
    setMistakes(found);
    if (found === undefined) save.run();
    else save.clear();
  };
  const id = (name: string) => `${idPrefix}-${name}`;
  /** aria-describedby for a control: its hint and, when the API refused it, the error under it. */
  const describedBy = (field: string, ...more: string[]) =>
    [...more, ...(error?.violationOf(field) === undefined ? [] : [id(`${field}-error`)])].join(' ') ||
    undefined;
  const invalid = (field: string) => error?.violationOf(field) !== undefined;
  const template = templates.find((t) => t.template_uuid === draft.templateUuid);
  const unit = UNITS.find((u) => u.unit === draft.unit) ?? UNITS[0];
  const sectionErrors = (error?.fieldViolations ?? []).filter((v) => v.field.startsWith('sections['));
  const form: FormParts = { draft, change, error, id, describedBy, invalid };

  return (
    <form
      onSubmit={submit}
      noValidate
      aria-label={schedule === undefined ? 'New schedule' : `Edit ${schedule.title}`}
    >
      <TitleAndTemplate form={form} templates={templates} />

      <FrequencyFields form={form} unit={unit} />

      <label htmlFor={id('next')}>Next report on</label>
      <input
        id={id('next')}
        type="datetime-local"
        value={draft.next}
        aria-invalid={invalid('next_scheduled_date')}
        aria-describedby={describedBy('next_scheduled_date', id('next-hint'))}
        onChange={(e) => {
          change({ next: e.target.value });
        }}
      />
      <p id={id('next-hint')} className="muted">
        Your local time (UTC{currentOffset()}); later reports come at the same time of day in that offset.
      </p>
      <FieldError error={error} field="next_scheduled_date" id={id('next_scheduled_date-error')} />

      <RecipientsFieldset form={form} />

      <SectionsFieldset form={form} template={template} sectionErrors={sectionErrors} />

      <FormError error={error} fields={shownFields(draft)} />
      {created && <p role="status">Schedule created.</p>}
      <div className="actions">
        <button type="submit" disabled={save.busy}>
          {schedule === undefined ? 'Create schedule' : 'Save schedule'}
        </button>
        {props.onCancel !== undefined && (
          <button type="button" className="secondary" onClick={props.onCancel}>
            Cancel
          </button>
        )}
      </div>
    </form>
  );
}

/** What the parts of the form share: the draft, how to change it, and the ids and errors of its fields. */
interface FormParts {
  readonly draft: ScheduleDraft;
  readonly change: (next: Partial<ScheduleDraft>) => void;
  readonly error: ApiError | undefined;
  readonly id: (name: string) => string;
  readonly describedBy: (field: string, ...more: string[]) => string | undefined;
  readonly invalid: (field: string) => boolean;
}

/** How often the report comes (a unit and a value) and when the next one does. */
function FrequencyFields({ form, unit }: { form: FormParts; unit: (typeof UNITS)[number] | undefined }) {
  const { draft, change, error, id, describedBy, invalid } = form;
  return (
    <>
      <label htmlFor={id('unit')}>Frequency</label>
      <select
        id={id('unit')}
        value={draft.unit}
        aria-invalid={invalid('frequency.unit')}
        aria-describedby={describedBy('frequency.unit')}
        onChange={(e) => {
          const monthly = e.target.value === 'MONTHLY';
          const wasMonthly = draft.unit === 'MONTHLY';
          change({ unit: e.target.value, ...(monthly !== wasMonthly && { value: monthly ? '1' : '7' }) });
        }}
      >
        {UNITS.map((u) => (
          <option key={u.unit} value={u.unit}>
            {u.label}
          </option>
        ))}
      </select>
      <FieldError error={error} field="frequency.unit" id={id('frequency.unit-error')} />
      <label htmlFor={id('value')}>{unit?.valueLabel}</label>
      <input
        id={id('value')}
        type="number"
        inputMode="numeric"
        value={draft.value}
        aria-invalid={invalid('frequency.value') || invalid('frequency')}
        aria-describedby={describedBy('frequency.value', id('value-hint'))}
        onChange={(e) => {
          change({ value: e.target.value });
        }}
      />
      <p id={id('value-hint')} className="muted">
        {draft.unit === 'MONTHLY'
          ? 'From 1 to 31; in a shorter month the report comes on its last day.'
          : '7 for a weekly report, 14 for one every two weeks.'}
      </p>
      <FieldError error={error} field="frequency.value" id={id('frequency.value-error')} />
      <FieldError error={error} field="frequency" />
    </>
  );
}

/** The people who get the report: a name and an e-mail address each, added and removed in place. */
function RecipientsFieldset({ form }: { form: FormParts }) {
  const { draft, change, error, id, describedBy, invalid } = form;
  return (
    <fieldset aria-describedby={describedBy('recipients')}>
      <legend>Recipients</legend>
      {draft.recipients.length === 0 && (
        <p className="muted">Nobody yet: add the people who get the report.</p>
      )}
      {draft.recipients.map((recipient, i) => {
        const n = String(i);
        const setRecipient = (next: Partial<typeof recipient>) => {
          change({ recipients: draft.recipients.map((r, j) => (j === i ? { ...r, ...next } : r)) });
        };
        return (
          <div className="recipient" key={i} role="group" aria-label={`Recipient ${String(i + 1)}`}>
            <div>
              <label htmlFor={id(`recipient-name-${n}`)}>Name</label>
              <input
                id={id(`recipient-name-${n}`)}
                value={recipient.name}
                autoComplete="off"
                aria-invalid={invalid(`recipients[${n}].name`)}
                aria-describedby={describedBy(`recipients[${n}].name`)}
                onChange={(e) => {
                  setRecipient({ name: e.target.value });
                }}
              />
              <FieldError
                error={error}
                field={`recipients[${n}].name`}
                id={id(`recipients[${n}].name-error`)}
              />
            </div>
            <div>
              <label htmlFor={id(`recipient-email-${n}`)}>E-mail address</label>
              <input
                id={id(`recipient-email-${n}`)}
                type="email"
                value={recipient.email}
                autoComplete="off"
                aria-invalid={invalid(`recipients[${n}].email`)}
                aria-describedby={describedBy(`recipients[${n}].email`)}
                onChange={(e) => {
                  setRecipient({ email: e.target.value });
                }}
              />
              <FieldError
                error={error}
                field={`recipients[${n}].email`}
                id={id(`recipients[${n}].email-error`)}
              />
            </div>
            <FieldError error={error} field={`recipients[${n}]`} />
            <button
              type="button"
              className="secondary"
              aria-label={`Remove recipient ${String(i + 1)}`}
              onClick={() => {
                change({ recipients: draft.recipients.filter((_, j) => j !== i) });
              }}
            >
              Remove
            </button>
          </div>
        );
      })}
      <FieldError error={error} field="recipients" id={id('recipients-error')} />
      <button
        type="button"
        className="secondary"
        onClick={() => {
          change({ recipients: [...draft.recipients, { name: '', email: '' }] });
        }}
      >
        Add a recipient
      </button>
    </fieldset>
  );
}

/** The template's sections the report includes, kept in the template's order. */
function SectionsFieldset({
  form,
  template,
  sectionErrors,
}: {
  form: FormParts;
  template: ReportTemplate | undefined;
  sectionErrors: readonly { field: string; description: string }[];
}) {
  const { draft, change, error, id, describedBy } = form;
  return (
    <fieldset aria-describedby={describedBy('sections')}>
      <legend>Sections</legend>
      {template?.sections.map(({ name }) => (
        <label key={name} className="inline section-choice">
          <input
            type="checkbox"
            checked={draft.sections.includes(name)}
            onChange={(e) => {
              const chosen = e.target.checked
                ? [...draft.sections, name]
                : draft.sections.filter((s) => s !== name);
              // In the template's order, as the API answers them.
              change({ sections: template.sections.map((s) => s.name).filter((s) => chosen.includes(s)) });
            }}
          />{' '}
          {capitalised(name)}
        </label>
      ))}
      <FieldError error={error} field="sections" id={id('sections-error')} />
      {sectionErrors.map((v) => (
        <p key={v.field} className="error">
          {v.description}
        </p>
      ))}
    </fieldset>
  );
}

/** The e-mail's title, and the template whose sections the report offers. */
function TitleAndTemplate({ form, templates }: { form: FormParts; templates: readonly ReportTemplate[] }) {
  const { draft, change, error, id, describedBy, invalid } = form;
  return (
    <>
      <label htmlFor={id('title')}>Title</label>
      <input
        id={id('title')}
        value={draft.title}
        maxLength={200}
        aria-invalid={invalid('title')}
        aria-describedby={describedBy('title', id('title-hint'))}
        onChange={(e) => {
          change({ title: e.target.value });
        }}
      />
      <p id={id('title-hint')} className="muted">
        The subject of the e-mail, followed by the site and the period.
      </p>
      <FieldError error={error} field="title" id={id('title-error')} />

      <label htmlFor={id('template')}>Template</label>
      <select
        id={id('template')}
        value={draft.templateUuid}
        aria-invalid={invalid('template_uuid')}
        aria-describedby={describedBy('template_uuid')}
        onChange={(e) => {
          const chosen = templates.find((t) => t.template_uuid === e.target.value);
          change({ templateUuid: e.target.value, sections: chosen?.sections.map((s) => s.name) ?? [] });
        }}
      >
        {templates.map((t) => (
          <option key={t.template_uuid} value={t.template_uuid}>
            {t.template_name}
          </option>
        ))}
      </select>
      <FieldError error={error} field="template_uuid" id={id('template_uuid-error')} />
    </>
  );
}
