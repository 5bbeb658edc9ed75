/** A button that cannot run now and says why, shared by every action the portal holds back. */
import { Button, Tooltip, type ButtonProps } from '@mantine/core';
import type { ReactNode } from 'react';

/**
 * A button that, while `disabledReason` is set, says why it cannot run: on hover (a tooltip) and to
 * screen readers (`aria-describedby` → a hidden text with id `reasonId`). It stays focusable
 * (`aria-disabled`, not `disabled`), so keyboard users reach it and hear the reason, and a press does
 * nothing.
 */
export function ReasonedButton(
  props: ButtonProps & {
    disabledReason: string | undefined;
    reasonId: string;
    onClick: () => void;
    children: ReactNode;
    'aria-label'?: string;
  },
) {
  const { disabledReason, reasonId, onClick, children, ...button } = props;
  const held = disabledReason !== undefined;
  return (
    <>
      <Tooltip label={disabledReason} disabled={!held} withArrow multiline maw={280}>
        <Button
          {...button}
          data-disabled={held || undefined}
          aria-disabled={held || undefined}
          aria-describedby={held ? reasonId : undefined}
          onClick={(event) => {
            if (held) {
              event.preventDefault();
              return;
            }
            onClick();
          }}
        >
          {children}
        </Button>
      </Tooltip>
      {held && (
        <span id={reasonId} className="visually-hidden">
          {disabledReason}
        </span>
      )}
    </>
  );
}
