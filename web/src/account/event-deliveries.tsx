/** A subscription's recent deliveries: each event, its state and every attempt, readable on a phone. */
import { Badge, Table, Text } from '@mantine/core';
import type { Delivery } from '../../../src/client/api-client.js';
import { RelativeTime } from '../ui/time.js';
import './event-notifications.css';

type DeliveryState = Delivery['state'];

const STATE_LABELS: Record<DeliveryState, { label: string; color: string }> = {
  SUCCEEDED: { label: 'Succeeded', color: 'green' },
  PENDING: { label: 'Pending', color: 'blue' },
  FAILED: { label: 'Failed', color: 'red' },
};

/** A delivery's state as a badge: Succeeded, Pending (retrying) or Failed (given up). */
export function DeliveryBadge(props: { state: DeliveryState }) {
  const { label, color } = STATE_LABELS[props.state];
  return (
    <Badge variant="dot" color={color} tt="none" data-state={props.state}>
      {label}
    </Badge>
  );
}

/** An attempt's answer: the receiver's HTTP status, or that none came. */
export function attemptStatus(attempt: Delivery['attempts'][number]): string {
  return attempt.statusCode === undefined ? 'no answer' : `HTTP ${String(attempt.statusCode)}`;
}

/**
 * Newest first, as the API lists them, each with all its attempts. A table on a wide screen; on a
 * phone each row is a block (event and state, then the attempts), its table roles kept for screen
 * readers.
 */
export function DeliveryTable(props: { deliveries: readonly Delivery[]; caption: string }) {
  return (
    <Table className="deliveries-table" verticalSpacing="xs" role="table">
      <Table.Caption className="visually-hidden">{props.caption}</Table.Caption>
      <Table.Thead className="visually-hidden-below-xs">
        <Table.Tr role="row">
          <Table.Th scope="col" role="columnheader">
            Event
          </Table.Th>
          <Table.Th scope="col" role="columnheader">
            State
          </Table.Th>
          <Table.Th scope="col" role="columnheader">
            Attempts
          </Table.Th>
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>
        {props.deliveries.map((d) => (
          <Table.Tr key={d.name} role="row" data-delivery={d.name}>
            <Table.Th scope="row" role="rowheader" fw="normal" className="delivery-event">
              <Text size="sm" fw={500} ff="monospace" className="delivery-type">
                {d.eventType}
              </Text>
              <Text size="xs" c="dimmed">
                <RelativeTime iso={d.createTime} />
              </Text>
            </Table.Th>
            <Table.Td role="cell" className="delivery-state">
              <DeliveryBadge state={d.state} />
              {d.state === 'PENDING' && d.nextAttemptTime !== undefined && d.attempts.length > 0 && (
                <Text size="xs" c="dimmed" mt={2}>
                  retried <RelativeTime iso={d.nextAttemptTime} />
                </Text>
              )}
            </Table.Td>
            <Table.Td role="cell" className="delivery-attempts">
              {d.attempts.length === 0 ? (
                <Text size="xs" c="dimmed">
                  Not tried yet
                </Text>
              ) : (
                <ol className="attempts">
                  {d.attempts.map((a, i) => (
                    <li key={i}>
                      <Text size="xs" component="div">
                        <span
                          className={`attempt-status ${a.error === '' ? 'attempt-ok' : 'attempt-failed'}`}
                        >
                          {attemptStatus(a)}
                        </span>
                        <span className="attempt-meta">
                          {' '}
                          · {String(a.durationMs)} ms · <RelativeTime iso={a.time} />
                          {d.attempts.length > 1 && ` · attempt ${String(i + 1)}`}
                        </span>
                      </Text>
                      {a.error !== '' && (
                        <Text size="xs" c="red" className="attempt-error">
                          {a.error}
                        </Text>
                      )}
                    </li>
                  ))}
                </ol>
              )}
            </Table.Td>
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
}
