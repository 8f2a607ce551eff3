// Copies a value and says so to screen readers too.
import { useState } from 'react';

export function CopyButton({ value, label = 'Copy' }: { value: string; label?: string }) {
  const [copied, setCopied] = useState<'yes' | 'no' | undefined>();
  return (
    <>
      <button
        type="button"
        className="secondary"
        onClick={() =>
          navigator.clipboard.writeText(value).then(
            () => setCopied('yes'),
            () => setCopied('no'),
          )
        }
      >
        {label}
      </button>
      <span role="status" className="muted small">
        {copied === 'yes' ? 'Copied.' : copied === 'no' ? 'Copy failed: select the text and copy it.' : ''}
      </span>
    </>
  );
}
