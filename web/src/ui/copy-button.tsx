/** The copy-to-clipboard button shown next to a secret, a URL, a DNS record or a command. */
import { ActionIcon, CopyButton as MantineCopyButton, Tooltip } from '@mantine/core';
import { IconCheck, IconCopy } from '@tabler/icons-react';

/** Copies `text` to the clipboard; says so for a moment. `label` names what is copied, for screen readers. */
export function CopyButton(props: { text: string; label: string }) {
  return (
    <MantineCopyButton value={props.text} timeout={2_000}>
      {({ copied, copy }) => (
        <Tooltip label={copied ? 'Copied' : `Copy ${props.label}`} withArrow>
          <ActionIcon
            variant="subtle"
            color={copied ? 'teal' : 'gray'}
            aria-label={copied ? 'Copied' : `Copy ${props.label}`}
            onClick={copy}
          >
            {copied ? <IconCheck size={16} aria-hidden /> : <IconCopy size={16} aria-hidden />}
          </ActionIcon>
        </Tooltip>
      )}
    </MantineCopyButton>
  );
}
