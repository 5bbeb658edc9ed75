/** The button pages use before a change that cannot be undone, or that replaces what is live. */
import { Text, type ButtonProps } from '@mantine/core';
import { modals } from '@mantine/modals';
import type { ReactNode } from 'react';
import { ReasonedButton } from './reasoned-button.js';

/**
 * A button whose press first asks, in a dialog titled `title` (by default its label) that says what
 * will happen (`warning`), with a confirming button named for the change and a way back. `tone`
 * 'danger' for a deletion, 'safe' for a change that can be undone (a rollback, a rebuild). With
 * `disabledReason` it cannot be pressed and says why (ReasonedButton).
 */
export function ConfirmButton(props: {
  label: string;
  confirmLabel: string;
  warning: ReactNode;
  onConfirm: () => void;
  title?: string;
  busy?: boolean;
  /** Held back while another change of the same thing runs (no reason shown: it is brief). */
  disabled?: boolean;
  tone?: 'danger' | 'safe';
  size?: ButtonProps['size'];
  variant?: ButtonProps['variant'];
  leftSection?: ReactNode;
  'aria-label'?: string;
  disabledReason?: string;
  /** The id of the hidden text that gives `disabledReason` to screen readers. */
  reasonId?: string;
}) {
  const danger = (props.tone ?? 'danger') === 'danger';
  const ask = () => {
    modals.openConfirmModal({
      title: props.title ?? props.label,
      children: <Text size="sm">{props.warning}</Text>,
      labels: { confirm: props.confirmLabel, cancel: 'Cancel' },
      confirmProps: { color: danger ? 'red' : undefined },
      onConfirm: props.onConfirm,
    });
  };
  return (
    <ReasonedButton
      color={danger ? 'red' : undefined}
      variant={props.variant ?? (danger ? 'light' : 'default')}
      size={props.size ?? 'sm'}
      loading={props.busy}
      disabled={props.disabled}
      leftSection={props.leftSection}
      aria-label={props['aria-label']}
      disabledReason={props.disabledReason}
      reasonId={props.reasonId ?? `${props.label.toLowerCase().replace(/\s+/g, '-')}-reason`}
      onClick={ask}
    >
      {props.label}
    </ReasonedButton>
  );
}
