// A modal confirmation on the native <dialog>: focus moves in and is trapped, Escape cancels, and
// focus returns to the button that opened it.
import { useEffect, useRef, type ReactNode } from 'react';

interface ConfirmDialogProps {
  open: boolean;
  title: string;
  children: ReactNode;
  confirmLabel: string;
  danger?: boolean;
  busy?: boolean;
  onConfirm(): void;
  onCancel(): void;
}

export function ConfirmDialog(p: ConfirmDialogProps) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const d = ref.current;
    if (!d) return;
    if (p.open && !d.open) d.showModal();
    if (!p.open && d.open) d.close();
  }, [p.open]);
  return (
    <dialog ref={ref} aria-labelledby="confirm-title" onClose={p.onCancel} className="dialog">
      <h2 id="confirm-title">{p.title}</h2>
      <div>{p.children}</div>
      <div className="row end">
        <button type="button" className="secondary" onClick={p.onCancel}>
          Cancel
        </button>
        <button type="button" className={p.danger ? 'danger' : undefined} onClick={p.onConfirm} disabled={p.busy}>
          {p.busy ? 'Working…' : p.confirmLabel}
        </button>
      </div>
    </dialog>
  );
}
