/** The copy-to-clipboard button shown next to a secret, a URL or a command. */
import { useState } from 'react';

/** Copies `text` to the clipboard; says so for a moment. `label` names what is copied, for screen readers. */
export function CopyButton(props: { text: string; label: string }) {
  const [copied, setCopied] = useState(false);
  const copy = () => {
    void navigator.clipboard.writeText(props.text).then(() => {
      setCopied(true);
      setTimeout(() => {
        setCopied(false);
      }, 2_000);
    });
  };
  return (
    <button type="button" className="small" aria-label={`Copy ${props.label}`} onClick={copy}>
      {copied ? 'Copied' : 'Copy'}
    </button>
  );
}
