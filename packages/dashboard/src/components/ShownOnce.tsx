// A secret the API shows only once (a new key, an invitation link), with its copy button.
import { CopyButton } from './CopyButton';

export function ShownOnce({ value, testId, copyLabel }: { value: string; testId: string; copyLabel: string }) {
  return (
    <div className="row">
      <code className="secret" data-testid={testId}>
        {value}
      </code>
      <CopyButton value={value} label={copyLabel} />
    </div>
  );
}
