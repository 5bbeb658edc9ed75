/** One report schedule as the Reports tab lists it, with its change, run now and deletion. */
import { useState } from 'react';
import type { ReportSchedule, ReportTemplate } from '../../../src/client/api-client.js';
import { usePortal } from '../portal/portal-context.js';
import { ConfirmButton } from '../ui/confirm-button.js';
import { FormError } from '../ui/errors.js';
import { formatTime } from '../ui/time.js';
import { useAction } from '../ui/use-action.js';
import { ReportScheduleForm } from './report-schedule-form.js';

/** A schedule's frequency in words: `Every 7 days`, `Monthly on day 1`. */
export function frequencyInWords(frequency: ReportSchedule['frequency']): string {
  return frequency.unit === 'MONTHLY'
    ? `Monthly on day ${String(frequency.value)}`
    : `Every ${String(frequency.value)} days`;
}

/**
 * One report schedule: when it runs, to whom, with what; for owners and developers, a form to
 * change it, a run now and its deletion. `onReportsChanged` tells the page a report was made.
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
    },
  );
  const remove = useAction(() => client.deleteReportSchedule(schedule.schedule_id), props.onChanged);
  const template = templates.find((t) => t.template_uuid === schedule.template_uuid);
  const headingId = `schedule-${schedule.schedule_id}`;

  return (
    <article className="card" aria-labelledby={headingId}>
      <h3 id={headingId}>{schedule.title}</h3>
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
          <dt>Frequency</dt>
          <dd>{frequencyInWords(schedule.frequency)}</dd>
          <dt>Next report</dt>
          <dd>{formatTime(schedule.next_scheduled_date)}</dd>
          <dt>Template</dt>
          <dd>{template?.template_name ?? schedule.template_uuid}</dd>
          <dt>Sections</dt>
          <dd>{schedule.sections.join(', ')}</dd>
          <dt>Recipients</dt>
          <dd>
            <ul className="recipients">
              {schedule.recipients.map((r) => (
                <li key={r.email}>
                  {r.name} <span className="muted">&lt;{r.email}&gt;</span>
                </li>
              ))}
            </ul>
          </dd>
        </dl>
      )}
      {run.busy && <p role="status">Making the report and sending it…</p>}
      {notice !== undefined && !run.busy && <p role="status">{notice}</p>}
      <FormError error={run.error} />
      <FormError error={remove.error} />
      {props.canManage && !editing && (
        <div className="actions">
          <button
            type="button"
            className="secondary"
            onClick={() => {
              setNotice(undefined);
              setEditing(true);
            }}
          >
            Edit
          </button>
          <button
            type="button"
            disabled={run.busy}
            onClick={() => {
              setNotice(undefined);
              run.run();
            }}
          >
            Run now
          </button>
          <ConfirmButton
            label="Delete schedule"
            confirmLabel={`Delete ${schedule.title}`}
            warning="No more reports come from this schedule. The reports it already made are kept."
            busy={remove.busy}
            onConfirm={remove.run}
          />
        </div>
      )}
    </article>
  );
}
