// The submit button of a form whose call is under way: disabled, and saying what it is doing.
import type { ReactNode } from 'react';

export function SubmitButton({ pending, busy, children }: { pending: boolean; busy: string; children: ReactNode }) {
  return (
    <button type="submit" disabled={pending}>
      {pending ? busy : children}
    </button>
  );
}
