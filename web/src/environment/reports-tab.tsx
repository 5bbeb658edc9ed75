/** The environment page's Reports tab: site reports and their schedules, from the parts in reports/. */
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { resourceId } from '../../../src/client/api-client.js';
import { useAccount, usePortal } from '../portal/portal-context.js';
import { ReportScheduleCard } from '../reports/report-schedule-card.js';
import { ReportScheduleForm } from '../reports/report-schedule-form.js';
import { ReportTemplates } from '../reports/report-templates.js';
import { REPORTS_PAGE_SIZE, SiteReportsList } from '../reports/site-reports-list.js';
import { LoadError } from '../ui/errors.js';

import { useEnvironmentTab } from './environment-tab-props.js';

/**
 * How often the reports and the schedules are read again. The report API allows an account 120
 * requests a minute (ATOLL_REPORT_RATE_PER_MINUTE), shared by everyone of the account: a few
 * seconds shows a delivery's progress, and a page left open uses a small part of that budget.
 */
const REPORTS_POLL_MS = 5_000;
const SCHEDULES_POLL_MS = 30_000;

/**
 * The environment's site reports: its schedules (create, change, run now, delete), the reports
 * made from them with their delivery and downloads, and the templates they can use.
 */
export function ReportsTab() {
  const props = useEnvironmentTab();
  const { client } = usePortal();
  const member = useAccount(props.account);
  // A site of the report API is an environment, named by its id.
  const siteId = resourceId(props.environment.name);
  const canManage = member?.role === 'owner' || member?.role === 'developer';
  const accountUid = member?.uid;

  const templates = useQuery({
    queryKey: ['report-templates', accountUid],
    queryFn: () => (accountUid === undefined ? Promise.resolve([]) : client.listReportTemplates(accountUid)),
  });
  const schedules = useQuery({
    queryKey: ['report-schedules', siteId],
    queryFn: () => client.listReportSchedules(siteId),
    refetchInterval: SCHEDULES_POLL_MS,
  });
  const [offset, setOffset] = useState(0);
  const reports = useQuery({
    queryKey: ['site-reports', siteId, offset],
    queryFn: () => client.listSiteReports(siteId, REPORTS_PAGE_SIZE, offset),
    refetchInterval: REPORTS_POLL_MS,
  });
  const list = schedules.data;

  return (
    <>
      <section aria-labelledby="schedules-heading">
        <h2 id="schedules-heading">Schedules</h2>
        <LoadError error={schedules.error} />
        <LoadError error={templates.error} />
        {list === undefined ? (
          schedules.error === null && <p className="loading">Loading schedules…</p>
        ) : list.length === 0 ? (
          <p className="empty">
            No schedules yet. A schedule e-mails a report of this site (its deployments and uptime, traffic,
            builds and what it is made with) to its recipients every 7 or 14 days or on a day of each month,
            as a PDF and in the body of the e-mail.{' '}
            {canManage
              ? 'Create the first one below.'
              : 'An owner or a developer of the account can create one.'}
          </p>
        ) : (
          list.map((schedule) => (
            <ReportScheduleCard
              key={schedule.schedule_id}
              schedule={schedule}
              siteId={siteId}
              templates={templates.data ?? []}
              canManage={canManage}
              onChanged={() => void schedules.refetch()}
              onReportsChanged={() => void reports.refetch()}
            />
          ))
        )}
        {canManage && (
          <section className="card" aria-labelledby="new-schedule-heading">
            <h3 id="new-schedule-heading">New schedule</h3>
            {templates.data === undefined ? (
              templates.error === null && <p className="loading">Loading templates…</p>
            ) : (
              <ReportScheduleForm
                idPrefix="new-schedule"
                siteId={siteId}
                templates={templates.data}
                onSaved={() => void schedules.refetch()}
              />
            )}
          </section>
        )}
      </section>

      <section aria-labelledby="reports-heading">
        <h2 id="reports-heading">Reports</h2>
        <LoadError error={reports.error} />
        {reports.data === undefined ? (
          reports.error === null && <p className="loading">Loading reports…</p>
        ) : (
          <SiteReportsList page={reports.data} offset={offset} onOffset={setOffset} />
        )}
      </section>

      <section aria-labelledby="templates-heading">
        <h2 id="templates-heading">Templates</h2>
        {templates.data !== undefined && <ReportTemplates templates={templates.data} />}
      </section>
    </>
  );
}
