/** The environment page's Reports tab: site reports and their schedules, from the parts in reports/. */
import { Group, Loader, Paper, Stack, Text, Title } from '@mantine/core';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { resourceId } from '../../../src/client/api-client.js';
import { useAccount, usePortal } from '../portal/portal-context.js';
import { keys, reportSchedulesQuery, reportTemplatesQuery, siteReportsQuery } from '../portal/queries.js';
import { ReportScheduleCard } from '../reports/report-schedule-card.js';
import { ReportScheduleForm } from '../reports/report-schedule-form.js';
import { ReportTemplates } from '../reports/report-templates.js';
import { REPORTS_PAGE_SIZE, SiteReportsList } from '../reports/site-reports-list.js';
import { LoadError } from '../ui/errors.js';
import { useEnvironmentTab } from './environment-tab-props.js';
import '../reports/reports.css';

/**
 * The environment's site reports: its schedules (create, change, run now, delete), the reports
 * made from them with their delivery and downloads, and the templates they can use. Owners and
 * developers manage schedules; a viewer sees them and downloads the reports.
 */
export function ReportsTab() {
  const props = useEnvironmentTab();
  const { client } = usePortal();
  const queryClient = useQueryClient();
  const member = useAccount(props.account);
  // A site of the report API is an environment, named by its id.
  const siteId = resourceId(props.environment.name);
  const canManage = member?.role === 'owner' || member?.role === 'developer';

  const templates = useQuery(reportTemplatesQuery(client, member?.uid));
  const schedules = useQuery(reportSchedulesQuery(client, siteId));
  const [offset, setOffset] = useState(0);
  const reports = useQuery(siteReportsQuery(client, siteId, REPORTS_PAGE_SIZE, offset));
  const schedulesChanged = () =>
    void queryClient.invalidateQueries({ queryKey: keys.reportSchedules(siteId) });
  const reportsChanged = () => void queryClient.invalidateQueries({ queryKey: keys.siteReports(siteId) });
  const list = schedules.data;

  const newSchedule = canManage && (
    <Paper withBorder p="md" component="section" aria-labelledby="new-schedule-heading">
      <Title order={3} size="h5" id="new-schedule-heading" mb="sm">
        New schedule
      </Title>
      {templates.data === undefined ? (
        templates.error === null && <Waiting label="Loading templates…" />
      ) : (
        <ReportScheduleForm
          idPrefix="new-schedule"
          siteId={siteId}
          templates={templates.data}
          onSaved={schedulesChanged}
        />
      )}
    </Paper>
  );

  return (
    <Stack gap="xl" className="reports-tab">
      <section aria-labelledby="schedules-heading">
        <Title order={2} size="h4" id="schedules-heading">
          Schedules
        </Title>
        <Text size="sm" c="dimmed" mb="sm">
          A schedule e-mails a report of this site to its recipients, as a PDF and in the body of the e-mail.
        </Text>
        <LoadError error={schedules.error} />
        <LoadError error={templates.error} />
        <div className={canManage ? 'two-columns' : undefined}>
          <Stack gap="md">
            {list === undefined ? (
              schedules.error === null && <Waiting label="Loading schedules…" />
            ) : list.length === 0 ? (
              <Paper withBorder p="lg" className="reports-empty">
                <Text size="sm">
                  No schedules yet. A schedule sends a report of the site (its deployments and uptime,
                  traffic, builds and what it is made with) every 7 or 14 days or on a day of each month.{' '}
                  {canManage
                    ? 'Create the first one with the form.'
                    : 'An owner or a developer of the account can create one.'}
                </Text>
              </Paper>
            ) : (
              list.map((schedule) => (
                <ReportScheduleCard
                  key={schedule.schedule_id}
                  schedule={schedule}
                  siteId={siteId}
                  templates={templates.data ?? []}
                  canManage={canManage}
                  onChanged={schedulesChanged}
                  onReportsChanged={reportsChanged}
                />
              ))
            )}
          </Stack>
          {newSchedule}
        </div>
      </section>

      <section aria-labelledby="reports-heading">
        <Title order={2} size="h4" id="reports-heading" mb="sm">
          Reports
        </Title>
        <LoadError error={reports.error} />
        {reports.data === undefined ? (
          reports.error === null && <Waiting label="Loading reports…" />
        ) : (
          <SiteReportsList page={reports.data} offset={offset} onOffset={setOffset} />
        )}
      </section>

      <section aria-labelledby="templates-heading">
        <Title order={2} size="h4" id="templates-heading" mb="sm">
          Templates
        </Title>
        {templates.data !== undefined && <ReportTemplates templates={templates.data} />}
      </section>
    </Stack>
  );
}

function Waiting(props: { label: string }) {
  return (
    <Group gap="xs" role="status">
      <Loader size="xs" />
      <Text size="sm" c="dimmed">
        {props.label}
      </Text>
    </Group>
  );
}
