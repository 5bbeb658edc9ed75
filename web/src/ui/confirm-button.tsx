/** The button pages use before a change that cannot be undone, or that replaces what is live. */
import { Button, Text, type ButtonProps } from '@mantine/core';
import { modals } from '@mantine/modals';
import type { ReactNode } from 'react';

/**
 * A button whose press first asks, in a dialog that says what will happen (`warning`), with a
 * confirming button named for the change and a way back. `tone` 'danger' for a deletion, 'safe' for a
 * change that can be undone (a rollback).
 */
export function ConfirmButton(props: {
  label: string;
  confirmLabel: string;
  warning: ReactNode;
  onConfirm: () => void;
  busy?: boolean;
  tone?: 'danger' | 'safe';
  size?: ButtonProps['size'];
  variant?: ButtonProps['variant'];
  leftSection?: ReactNode;
  'aria-label'?: string;
  disabledReason?: string;
}) {
  const danger = (props.tone ?? 'danger') === 'danger';
  const ask = () => {
    modals.openConfirmModal({
      title: props.label,
      children: <Text size="sm">{props.warning}</Text>,
      labels: { confirm: props.confirmLabel, cancel: 'Cancel' },
      confirmProps: { color: danger ? 'red' : undefined },
      onConfirm: props.onConfirm,
    });
  };
  return (
    <Button
      color={danger ? 'red' : undefined}
      variant={props.variant ?? (danger ? 'light' : 'default')}
      size={props.size ?? 'sm'}
      loading={props.busy}
      leftSection={props.leftSection}
      aria-label={props['aria-label']}
      onClick={ask}
    >
      {props.label}
    </Button>
  );
}
