/** The list of the site's reports on the Reports tab: delivery, downloads and pages of the list. */
import type { ListSiteReports, SiteReport } from '../../../src/client/api-client.js';
import { formatTime } from '../ui/time.js';
import { sameOriginPath } from './same-origin-path.js';

/** How many reports a page of the list shows. */
export const REPORTS_PAGE_SIZE = 10;

const DELIVERY: Record<string, { label: string; badge: string }> = {
  SENT: { label: 'Sent', badge: 'badge live' },
  PENDING: { label: 'Sending', badge: 'badge running' },
  FAILED: { label: 'Failed', badge: 'badge failed' },
  NOT_REQUESTED: { label: 'Not sent (preview)', badge: 'badge' },
};

function formatDay(iso: string): string {
  return new Date(iso).toLocaleDateString();
}

/**
 * A page of the site's reports, newest first: the period, how it was made, its delivery to each
 * recipient and its PDF and HTML. `onOffset` moves to another page.
 */
export function SiteReportsList(props: {
  page: ListSiteReports;
  offset: number;
  onOffset: (offset: number) => void;
}) {
  const { page, offset } = props;
  if (page.count === 0)
    return <p className="empty">No reports yet. Run a schedule now, or wait for its next date.</p>;
  const last = Math.min(offset + page.results.length, page.count);
  return (
    <>
      <table className="site-reports">
        <caption className="muted">
          Reports {offset + 1}–{last} of {page.count}, newest first
        </caption>
        <thead>
          <tr>
            <th scope="col">Report</th>
            <th scope="col">Made</th>
            <th scope="col">Delivery</th>
            <th scope="col">Download</th>
          </tr>
        </thead>
        <tbody>
          {page.results.map((report) => (
            <ReportRow key={report.uuid} report={report} />
          ))}
        </tbody>
      </table>
      {page.count > REPORTS_PAGE_SIZE && (
        <nav className="actions" aria-label="Pages of reports">
          <button
            type="button"
            className="secondary"
            disabled={offset === 0}
            onClick={() => {
              props.onOffset(Math.max(0, offset - REPORTS_PAGE_SIZE));
            }}
          >
            Previous
          </button>
          <button
            type="button"
            className="secondary"
            disabled={offset + REPORTS_PAGE_SIZE >= page.count}
            onClick={() => {
              props.onOffset(offset + REPORTS_PAGE_SIZE);
            }}
          >
            Next
          </button>
        </nav>
      )}
    </>
  );
}

function ReportRow(props: { report: SiteReport }) {
  const { report } = props;
  const { delivery } = report;
  const shown = DELIVERY[delivery.status] ?? { label: delivery.status, badge: 'badge' };
  const made = formatTime(report.created_at);
  return (
    <tr>
      <td>
        <strong>{report.title}</strong>
        <br />
        <span className="muted">
          {formatDay(report.date_range.start_date)} to {formatDay(report.date_range.end_date)}
        </span>
      </td>
      <td>
        {made}
        <br />
        <span className="muted">{report.scheduled_for === null ? 'On demand' : 'Scheduled'}</span>
      </td>
      <td>
        <span className={shown.badge}>{shown.label}</span>
        {delivery.status === 'PENDING' && delivery.next_attempt_at !== null && (
          <span className="muted"> next try {formatTime(delivery.next_attempt_at)}</span>
        )}
        {delivery.last_error !== '' && <p className="error">{delivery.last_error}</p>}
        {delivery.status !== 'NOT_REQUESTED' && (
          <ul className="recipients">
            {report.recipients.map((r) => (
              <li key={r.email}>
                {r.name} &lt;{r.email}&gt;: {DELIVERY[r.status]?.label ?? r.status}
                {r.error !== '' && <span className="error"> ({r.error})</span>}
              </li>
            ))}
          </ul>
        )}
      </td>
      <td>
        {/* `download` saves the file rather than opening it; the session cookie authenticates the GET. */}
        <a
          href={sameOriginPath(report.download_url)}
          download
          aria-label={`PDF of ${report.title}, made ${made}`}
        >
          PDF
        </a>{' '}
        <a
          href={sameOriginPath(report.html_url)}
          download
          aria-label={`HTML of ${report.title}, made ${made}`}
        >
          HTML
        </a>
      </td>
    </tr>
  );
}
