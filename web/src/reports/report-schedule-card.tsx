/** One report schedule as the Reports tab lists it, with its change, run now and deletion. */
import { Badge, Button, Group, Loader, Paper, Text, Title } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { IconCalendarRepeat, IconPencil, IconPlayerPlay, IconTrash } from '@tabler/icons-react';
import { useState } from 'react';
import type { ReportSchedule, ReportTemplate } from '../../../src/client/api-client.js';
import { usePortal } from '../portal/portal-context.js';
import { ConfirmButton } from '../ui/confirm-button.js';
import { FormError } from '../ui/errors.js';
import { RelativeTime } from '../ui/time.js';
import { useAction } from '../ui/use-action.js';
import { ReportScheduleForm } from './report-schedule-form.js';
import './reports.css';

/** A schedule's frequency in words: `Every 7 days`, `Monthly on day 1`. */
export function frequencyInWords(frequency: ReportSchedule['frequency']): string {
  return frequency.unit === 'MONTHLY'
    ? `Monthly on day ${String(frequency.value)}`
    : `Every ${String(frequency.value)} days`;
}

const capitalised = (name: string) => `${name.charAt(0).toUpperCase()}${name.slice(1)}`;

/**
 * One report schedule: when it runs, to whom, with what; for owners and developers, a form to
 * change it in place, a run now and its deletion. `onReportsChanged` tells the page a report was
 * made, `onChanged` that the schedule changed or went.
 */
export function ReportScheduleCard(props: {
  schedule: ReportSchedule;
  siteId: string;
  templates: readonly ReportTemplate[];
  canManage: boolean;
  onChanged: () => void;
  onReportsChanged: () => void;
}) {
  const { client } = usePortal();
  const { schedule, templates } = props;
  const [editing, setEditing] = useState(false);
  const [notice, setNotice] = useState<string>();
  const run = useAction(
    async () => {
      try {
        return await client.runReportSchedule(schedule.schedule_id, true);
      } finally {
        // A refused delivery (502) still made and kept a report: the list shows it either way.
        props.onReportsChanged();
      }
    },
    () => {
      // The API answers 201 only once the relay took the report for every recipient.
      setNotice('Report generated and sent');
      notifications.show({
        color: 'teal',
        title: schedule.title,
        message: `Report sent to ${String(schedule.recipients.length)} ${schedule.recipients.length === 1 ? 'recipient' : 'recipients'}.`,
      });
    },
  );
  const remove = useAction(
    () => client.deleteReportSchedule(schedule.schedule_id),
    () => {
      notifications.show({ message: `Schedule ${schedule.title} deleted. Its reports are kept.` });
      props.onChanged();
    },
  );
  const template = templates.find((t) => t.template_uuid === schedule.template_uuid);
  const headingId = `schedule-${schedule.schedule_id}`;

  return (
    <Paper withBorder p="md" component="article" aria-labelledby={headingId} className="schedule-card">
      <Group justify="space-between" align="flex-start" gap="xs" mb="sm">
        <Title order={3} size="h5" id={headingId} className="schedule-title">
          {schedule.title}
        </Title>
        <Badge variant="default" leftSection={<IconCalendarRepeat size={12} aria-hidden />}>
          {frequencyInWords(schedule.frequency)}
        </Badge>
      </Group>
      {editing ? (
        <ReportScheduleForm
          idPrefix={`edit-${schedule.schedule_id}`}
          siteId={props.siteId}
          templates={templates}
          schedule={schedule}
          onSaved={(saved) => {
            setEditing(false);
            setNotice(saved === undefined ? 'Nothing changed.' : 'Schedule saved.');
            props.onChanged();
          }}
          onCancel={() => {
            setEditing(false);
          }}
        />
      ) : (
        <dl className="facts">
          <dt>Next report</dt>
          <dd>
            <RelativeTime iso={schedule.next_scheduled_date} />
          </dd>
          <dt>Template</dt>
          <dd>{template?.template_name ?? schedule.template_uuid}</dd>
          <dt>Sections</dt>
          <dd>{schedule.sections.map(capitalised).join(', ')}</dd>
          <dt>Recipients</dt>
          <dd>
            <ul className="schedule-recipients">
              {schedule.recipients.map((r) => (
                <li key={r.email}>
                  {r.name}{' '}
                  <Text span size="sm" c="dimmed">
                    &lt;{r.email}&gt;
                  </Text>
                </li>
              ))}
            </ul>
          </dd>
        </dl>
      )}
      {run.busy && (
        <Group gap="xs" mt="sm" role="status">
          <Loader size="xs" />
          <Text size="sm">Making the report and sending it…</Text>
        </Group>
      )}
      {notice !== undefined && !run.busy && (
        <Text role="status" size="sm" c="teal" mt="sm">
          {notice}
        </Text>
      )}
      <FormError error={run.error} />
      <FormError error={remove.error} />
      {props.canManage && !editing && (
        <Group gap="xs" mt="md">
          <Button
            size="xs"
            leftSection={<IconPlayerPlay size={14} aria-hidden />}
            loading={run.busy}
            onClick={() => {
              setNotice(undefined);
              run.run();
            }}
          >
            Run now
          </Button>
          <Button
            size="xs"
            variant="default"
            leftSection={<IconPencil size={14} aria-hidden />}
            onClick={() => {
              setNotice(undefined);
              setEditing(true);
            }}
          >
            Edit
          </Button>
          <ConfirmButton
            label="Delete schedule"
            confirmLabel={`Delete ${schedule.title}`}
            warning={`No more reports come from ${schedule.title}. The reports it already made are kept.`}
            size="xs"
            leftSection={<IconTrash size={14} aria-hidden />}
            busy={remove.busy}
            onConfirm={remove.run}
          />
        </Group>
      )}
    </Paper>
  );
}
