/** The list of the site's reports on the Reports tab: delivery, downloads and pages of the list. */
import { Badge, Button, Group, Table, Text, type MantineColor } from '@mantine/core';
import { IconChevronLeft, IconChevronRight, IconDownload } from '@tabler/icons-react';
import type { ListSiteReports, SiteReport } from '../../../src/client/api-client.js';
import { formatTime, RelativeTime } from '../ui/time.js';
import { sameOriginPath } from './same-origin-path.js';
import './reports.css';

/** How many reports a page of the list shows. */
export const REPORTS_PAGE_SIZE = 10;

const DELIVERY: Record<string, { label: string; color: MantineColor }> = {
  SENT: { label: 'Sent', color: 'teal' },
  PENDING: { label: 'Sending', color: 'blue' },
  FAILED: { label: 'Failed', color: 'red' },
  NOT_REQUESTED: { label: 'Not sent (preview)', color: 'gray' },
};

function formatDay(iso: string): string {
  return new Date(iso).toLocaleDateString();
}

/**
 * A page of the site's reports, newest first: the period, how it was made, its delivery to each
 * recipient and its PDF and HTML. `onOffset` moves to another page. On a phone each row reflows
 * into a block (reports.css); the table's roles are explicit so that it stays a table to screen
 * readers whatever its display.
 */
export function SiteReportsList(props: {
  page: ListSiteReports;
  offset: number;
  onOffset: (offset: number) => void;
}) {
  const { page, offset } = props;
  if (page.count === 0)
    return (
      <Text size="sm" c="dimmed">
        No reports yet. Run a schedule now, or wait for its next date.
      </Text>
    );
  const last = Math.min(offset + page.results.length, page.count);
  return (
    <>
      <Table className="site-reports" verticalSpacing="sm" role="table">
        <Table.Caption>
          Reports {offset + 1}–{last} of {page.count}, newest first
        </Table.Caption>
        <Table.Thead role="rowgroup">
          <Table.Tr role="row">
            <Table.Th scope="col" role="columnheader">
              Report
            </Table.Th>
            <Table.Th scope="col" role="columnheader">
              Made
            </Table.Th>
            <Table.Th scope="col" role="columnheader">
              Delivery
            </Table.Th>
            <Table.Th scope="col" role="columnheader">
              Download
            </Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody role="rowgroup">
          {page.results.map((report) => (
            <ReportRow key={report.uuid} report={report} />
          ))}
        </Table.Tbody>
      </Table>
      {page.count > REPORTS_PAGE_SIZE && (
        <Group component="nav" aria-label="Pages of reports" gap="xs" mt="sm">
          <Button
            variant="default"
            size="xs"
            leftSection={<IconChevronLeft size={14} aria-hidden />}
            disabled={offset === 0}
            onClick={() => {
              props.onOffset(Math.max(0, offset - REPORTS_PAGE_SIZE));
            }}
          >
            Previous
          </Button>
          <Button
            variant="default"
            size="xs"
            rightSection={<IconChevronRight size={14} aria-hidden />}
            disabled={offset + REPORTS_PAGE_SIZE >= page.count}
            onClick={() => {
              props.onOffset(offset + REPORTS_PAGE_SIZE);
            }}
          >
            Next
          </Button>
        </Group>
      )}
    </>
  );
}

function ReportRow(props: { report: SiteReport }) {
  const { report } = props;
  const { delivery } = report;
  const shown = DELIVERY[delivery.status] ?? { label: delivery.status, color: 'gray' };
  const made = formatTime(report.created_at);
  return (
    <Table.Tr role="row">
      <Table.Td role="cell" data-label="Report">
        <Text size="sm" fw={600} className="site-report-title">
          {report.title}
        </Text>
        <Text size="xs" c="dimmed">
          {formatDay(report.date_range.start_date)} to {formatDay(report.date_range.end_date)}
        </Text>
      </Table.Td>
      <Table.Td role="cell" data-label="Made">
        <Text size="sm">
          <RelativeTime iso={report.created_at} />
        </Text>
        <Text size="xs" c="dimmed">
          {report.scheduled_for === null ? 'On demand' : 'Scheduled'}
        </Text>
      </Table.Td>
      <Table.Td role="cell" data-label="Delivery">
        <Badge variant="dot" color={shown.color}>
          {shown.label}
        </Badge>
        {delivery.status === 'PENDING' && delivery.next_attempt_at !== null && (
          <Text size="xs" c="dimmed">
            Next try <RelativeTime iso={delivery.next_attempt_at} />
          </Text>
        )}
        {delivery.last_error !== '' && <p className="field-error">{delivery.last_error}</p>}
        {delivery.status !== 'NOT_REQUESTED' && (
          <ul className="site-report-recipients">
            {report.recipients.map((r) => (
              <li key={r.email}>
                {`${r.name} <${r.email}>: ${DELIVERY[r.status]?.label ?? r.status}`}
                {r.error !== '' && <span className="field-error"> ({r.error})</span>}
              </li>
            ))}
          </ul>
        )}
      </Table.Td>
      <Table.Td role="cell" data-label="Download">
        {/* `download` saves the file rather than opening it; the session cookie authenticates the GET. */}
        <Group gap={6} wrap="nowrap">
          <Button
            component="a"
            href={sameOriginPath(report.download_url)}
            download
            size="compact-xs"
            variant="default"
            leftSection={<IconDownload size={12} aria-hidden />}
            aria-label={`PDF of ${report.title}, made ${made}`}
          >
            PDF
          </Button>
          <Button
            component="a"
            href={sameOriginPath(report.html_url)}
            download
            size="compact-xs"
            variant="default"
            leftSection={<IconDownload size={12} aria-hidden />}
            aria-label={`HTML of ${report.title}, made ${made}`}
          >
            HTML
          </Button>
        </Group>
      </Table.Td>
    </Table.Tr>
  );
}
