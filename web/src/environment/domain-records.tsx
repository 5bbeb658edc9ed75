/** The DNS records a domain needs, as a table with a copy button on each name and value. */
import { Badge, Text } from '@mantine/core';
import { relativeRecordName, type DomainMapping } from '../../../src/client/api-client.js';
import { CopyButton } from '../ui/copy-button.js';
import { isVerified } from './domain-progress.js';
import './domains.css';

/** One record to create, and whether the last lookup found it. */
interface RecordRow {
  readonly type: string;
  readonly purpose: string;
  readonly name: string;
  readonly value: string;
  readonly found: 'found' | 'missing' | 'unchecked';
  /** data-testid of the name and value, for the TXT record the tests publish. */
  readonly testId?: string;
}

function rowsOf(mapping: DomainMapping): RecordRow[] {
  const { txtRecord, dnsCheck } = mapping;
  const edgeFound: RecordRow['found'] =
    dnsCheck.result === 'PASSED' ? 'found' : dnsCheck.result === 'FAILED' ? 'missing' : 'unchecked';
  return [
    {
      type: 'TXT',
      purpose: 'Proves the domain is yours',
      name: txtRecord.name,
      value: txtRecord.value,
      found: isVerified(mapping) ? 'found' : txtRecord.checkTime === undefined ? 'unchecked' : 'missing',
      testId: 'txt',
    },
    ...mapping.edgeRecords.map((r) => ({
      type: r.type,
      purpose: 'Points the domain here',
      name: r.name,
      value: r.value,
      found: edgeFound,
    })),
  ];
}

const FOUND: Readonly<Record<RecordRow['found'], { label: string; color: string }>> = {
  found: { label: 'Found', color: 'teal' },
  missing: { label: 'Not found yet', color: 'orange' },
  unchecked: { label: 'Not looked up yet', color: 'gray' },
};

/**
 * The records to create at the user's DNS provider: the TXT record that proves ownership and the
 * A/AAAA or CNAME records of `edgeRecords`. Names show in full, with the short form most providers'
 * forms take; explicit table roles keep the table's semantics when a phone shows rows as blocks.
 */
export function DomainRecords(props: { mapping: DomainMapping; id?: string }) {
  const { mapping } = props;
  const rows = rowsOf(mapping);
  return (
    <table
      className="dns-records"
      role="table"
      id={props.id}
      aria-label={`DNS records for ${mapping.domain}`}
    >
      <thead role="rowgroup">
        <tr role="row">
          <th role="columnheader" scope="col" className="dns-record-type">
            Type
          </th>
          <th role="columnheader" scope="col">
            Name (host)
          </th>
          <th role="columnheader" scope="col">
            Value
          </th>
          <th role="columnheader" scope="col" className="dns-record-status">
            Status
          </th>
        </tr>
      </thead>
      <tbody role="rowgroup">
        {rows.map((row) => {
          const short = relativeRecordName(row.name, mapping.domain);
          const found = FOUND[row.found];
          return (
            <tr role="row" key={`${row.type} ${row.value}`}>
              <th role="rowheader" scope="row" className="dns-record-type">
                <Text fw={700} size="sm" ff="monospace">
                  {row.type}
                </Text>
                <Text size="xs" c="dimmed">
                  {row.purpose}
                </Text>
              </th>
              <td role="cell">
                <span className="dns-label" aria-hidden>
                  Name (host)
                </span>
                <div className="dns-value">
                  <code data-testid={row.testId && `${row.testId}-name`}>{row.name}</code>
                  <CopyButton text={row.name} label={`${row.type} record name`} />
                </div>
                {short !== row.name && (
                  <Text size="xs" c="dimmed">
                    or <code>{short}</code> where the provider adds the domain itself
                  </Text>
                )}
              </td>
              <td role="cell">
                <span className="dns-label" aria-hidden>
                  Value
                </span>
                <div className="dns-value">
                  <code data-testid={row.testId && `${row.testId}-value`}>{row.value}</code>
                  <CopyButton
                    text={row.value}
                    label={row.type === 'TXT' ? 'TXT record value' : `${row.type} record value ${row.value}`}
                  />
                </div>
              </td>
              <td role="cell" className="dns-record-status">
                <Badge variant="dot" color={found.color} size="sm">
                  {found.label}
                </Badge>
              </td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}
