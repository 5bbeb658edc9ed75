/** The form that creates or changes a report schedule, with the rules a user can be told at once. */
import {
  ActionIcon,
  Button,
  Checkbox,
  Fieldset,
  Group,
  NativeSelect,
  Stack,
  Text,
  TextInput,
  Tooltip,
} from '@mantine/core';
import { IconPlus, IconTrash } from '@tabler/icons-react';
import { useState, type SyntheticEvent } from 'react';
import {
  ApiError,
  type ReportSchedule,
  type ReportScheduleFields,
  type ReportTemplate,
} from '../../../src/client/api-client.js';
import { usePortal } from '../portal/portal-context.js';
import { FieldError, fieldError, FormError } from '../ui/errors.js';
import { useAction } from '../ui/use-action.js';
import { currentOffset, fromLocalInput, toLocalInput, tomorrowMorning } from './local-date-time.js';
import './reports.css';

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
 * changed). The report API's refusals show under the field they name: each input's id is the
 * field's path after `idPrefix` (`new-schedule-frequency.value`), and its error's id that and
 * `-error`, as Mantine's inputs name them.
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
  /** aria-describedby for a group: the error under it, when the API refused it. */
  const describedBy = (field: string) =>
    error?.violationOf(field) === undefined ? undefined : id(`${field}-error`);
  const template = templates.find((t) => t.template_uuid === draft.templateUuid);
  const unit = UNITS.find((u) => u.unit === draft.unit) ?? UNITS[0];
  const sectionErrors = (error?.fieldViolations ?? []).filter((v) => v.field.startsWith('sections['));
  const form: FormParts = { draft, change, error, id, describedBy };

  return (
    <form
      onSubmit={submit}
      noValidate
      aria-label={schedule === undefined ? 'New schedule' : `Edit ${schedule.title}`}
    >
      <Stack gap="sm">
        <TitleAndTemplate form={form} templates={templates} />
        <FrequencyFields form={form} unit={unit} />
        <TextInput
          id={id('next_scheduled_date')}
          label="Next report on"
          type="datetime-local"
          value={draft.next}
          description={`Your local time (UTC${currentOffset()}); later reports come at the same time of day in that offset.`}
          error={fieldError(error, 'next_scheduled_date')}
          onChange={(e) => {
            change({ next: e.currentTarget.value });
          }}
        />
        <RecipientsFieldset form={form} />
        <SectionsFieldset form={form} template={template} sectionErrors={sectionErrors} />

        <FormError error={error} fields={shownFields(draft)} />
        {created && (
          <Text role="status" size="sm" c="teal">
            Schedule created.
          </Text>
        )}
        <Group gap="sm">
          <Button type="submit" loading={save.busy}>
            {schedule === undefined ? 'Create schedule' : 'Save schedule'}
          </Button>
          {props.onCancel !== undefined && (
            <Button variant="default" onClick={props.onCancel}>
              Cancel
            </Button>
          )}
        </Group>
      </Stack>
    </form>
  );
}

/** What the parts of the form share: the draft, how to change it, and the ids and errors of its fields. */
interface FormParts {
  readonly draft: ScheduleDraft;
  readonly change: (next: Partial<ScheduleDraft>) => void;
  readonly error: ApiError | undefined;
  readonly id: (name: string) => string;
  readonly describedBy: (field: string) => string | undefined;
}

/** How often the report comes: a unit and a value, side by side where there is room. */
function FrequencyFields({ form, unit }: { form: FormParts; unit: (typeof UNITS)[number] | undefined }) {
  const { draft, change, error, id } = form;
  return (
    <div className="schedule-form-row">
      <NativeSelect
        id={id('frequency.unit')}
        label="Frequency"
        value={draft.unit}
        error={fieldError(error, 'frequency.unit')}
        data={UNITS.map((u) => ({ value: u.unit, label: u.label }))}
        onChange={(e) => {
          const monthly = e.currentTarget.value === 'MONTHLY';
          const wasMonthly = draft.unit === 'MONTHLY';
          change({
            unit: e.currentTarget.value,
            ...(monthly !== wasMonthly && { value: monthly ? '1' : '7' }),
          });
        }}
      />
      <TextInput
        id={id('frequency.value')}
        label={unit?.valueLabel}
        // The hint under the input, so that it lines up with the unit's select beside it.
        inputWrapperOrder={['label', 'input', 'description', 'error']}
        type="number"
        inputMode="numeric"
        value={draft.value}
        description={
          draft.unit === 'MONTHLY'
            ? 'From 1 to 31; in a shorter month the report comes on its last day.'
            : '7 for a weekly report, 14 for one every two weeks.'
        }
        // A rule about the frequency as a whole shows here too: the value is what the user chose.
        error={fieldError(error, 'frequency.value') ?? fieldError(error, 'frequency')}
        onChange={(e) => {
          change({ value: e.currentTarget.value });
        }}
      />
    </div>
  );
}

/** The people who get the report: a name and an e-mail address each, added and removed in place. */
function RecipientsFieldset({ form }: { form: FormParts }) {
  const { draft, change, error, id, describedBy } = form;
  return (
    <Fieldset
      legend="Recipients"
      aria-describedby={describedBy('recipients')}
      variant="unstyled"
      className="schedule-fieldset"
    >
      <Stack gap="xs">
        {draft.recipients.length === 0 && (
          <Text size="sm" c="dimmed">
            Nobody yet: add the people who get the report.
          </Text>
        )}
        {draft.recipients.map((recipient, i) => {
          const n = String(i);
          const label = `Recipient ${String(i + 1)}`;
          const setRecipient = (next: Partial<typeof recipient>) => {
            change({ recipients: draft.recipients.map((r, j) => (j === i ? { ...r, ...next } : r)) });
          };
          const labelId = id(`recipient-${n}-label`);
          return (
            <div key={i} role="group" aria-labelledby={labelId} className="schedule-recipient">
              <Group justify="space-between" gap="xs" mb={4}>
                <Text size="xs" c="dimmed" id={labelId}>
                  {label}
                </Text>
                <Tooltip label={`Remove recipient ${String(i + 1)}`}>
                  <ActionIcon
                    variant="subtle"
                    color="gray"
                    size="sm"
                    aria-label={`Remove recipient ${String(i + 1)}`}
                    onClick={() => {
                      change({ recipients: draft.recipients.filter((_, j) => j !== i) });
                    }}
                  >
                    <IconTrash size={14} aria-hidden />
                  </ActionIcon>
                </Tooltip>
              </Group>
              <div className="schedule-form-row">
                <TextInput
                  id={id(`recipients[${n}].name`)}
                  label="Name"
                  value={recipient.name}
                  autoComplete="off"
                  error={fieldError(error, `recipients[${n}].name`)}
                  onChange={(e) => {
                    setRecipient({ name: e.currentTarget.value });
                  }}
                />
                <TextInput
                  id={id(`recipients[${n}].email`)}
                  label="E-mail address"
                  type="email"
                  value={recipient.email}
                  autoComplete="off"
                  error={fieldError(error, `recipients[${n}].email`)}
                  onChange={(e) => {
                    setRecipient({ email: e.currentTarget.value });
                  }}
                />
              </div>
              <FieldError error={error} field={`recipients[${n}]`} />
            </div>
          );
        })}
        <FieldError error={error} field="recipients" id={id('recipients-error')} />
        <Group>
          <Button
            variant="default"
            size="xs"
            leftSection={<IconPlus size={14} aria-hidden />}
            onClick={() => {
              change({ recipients: [...draft.recipients, { name: '', email: '' }] });
            }}
          >
            Add a recipient
          </Button>
        </Group>
      </Stack>
    </Fieldset>
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
    <Fieldset
      legend="Sections"
      aria-describedby={describedBy('sections')}
      variant="unstyled"
      className="schedule-fieldset"
    >
      <div className="schedule-sections">
        {template?.sections.map(({ name }) => (
          <Checkbox
            key={name}
            label={capitalised(name)}
            checked={draft.sections.includes(name)}
            onChange={(e) => {
              const chosen = e.currentTarget.checked
                ? [...draft.sections, name]
                : draft.sections.filter((s) => s !== name);
              // In the template's order, as the API answers them.
              change({ sections: template.sections.map((s) => s.name).filter((s) => chosen.includes(s)) });
            }}
          />
        ))}
      </div>
      <FieldError error={error} field="sections" id={id('sections-error')} />
      {sectionErrors.map((v) => (
        <p key={v.field} className="field-error">
          {v.description}
        </p>
      ))}
    </Fieldset>
  );
}

/** The e-mail's title, and the template whose sections the report offers. */
function TitleAndTemplate({ form, templates }: { form: FormParts; templates: readonly ReportTemplate[] }) {
  const { draft, change, error, id } = form;
  return (
    <>
      <TextInput
        id={id('title')}
        label="Title"
        value={draft.title}
        maxLength={200}
        description="The subject of the e-mail, followed by the site and the period."
        error={fieldError(error, 'title')}
        onChange={(e) => {
          change({ title: e.currentTarget.value });
        }}
      />
      <NativeSelect
        id={id('template_uuid')}
        label="Template"
        value={draft.templateUuid}
        error={fieldError(error, 'template_uuid')}
        data={templates.map((t) => ({ value: t.template_uuid, label: t.template_name }))}
        onChange={(e) => {
          const chosen = templates.find((t) => t.template_uuid === e.currentTarget.value);
          change({
            templateUuid: e.currentTarget.value,
            sections: chosen?.sections.map((s) => s.name) ?? [],
          });
        }}
      />
    </>
  );
}
