// A labelled input with its hint and the API's message for it, wired for screen readers; Labelled
// wires any other control (a select, a textarea, a list of ids) the same way; Options fills a select.
import { type InputHTMLAttributes, type ReactNode, useId } from 'react';

interface FieldProps extends InputHTMLAttributes<HTMLInputElement> {
  label: string;
  hint?: string;
  error?: string;
}

export function Field({ label, hint, error, ...input }: FieldProps) {
  return (
    <Labelled label={label} hint={hint} error={error}>
      {(control) => <input {...control} {...input} />}
    </Labelled>
  );
}

/** A credential the API keeps write-only: hidden as it is typed, never offered by autofill, required. */
export function SecretField(props: Omit<FieldProps, 'type' | 'autoComplete' | 'required'>) {
  return <Field type="password" autoComplete="off" required {...props} />;
}

/** What Labelled gives its control: the id its label points at, and the hint and error it is described by. */
export type ControlProps = { id: string; 'aria-describedby'?: string; 'aria-invalid'?: true };

/** A label, the control (given its id and described-by), an optional hint and the field's sentence. */
export function Labelled({
  label,
  hint,
  error,
  children,
}: {
  label: string;
  hint?: string;
  error?: string;
  children(props: ControlProps): ReactNode;
}) {
  const id = useId();
  const described = [hint && `${id}-hint`, error && `${id}-error`].filter(Boolean).join(' ') || undefined;
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      {hint && (
        <p className="hint" id={`${id}-hint`}>
          {hint}
        </p>
      )}
      {children({ id, 'aria-describedby': described, ...(error ? { 'aria-invalid': true as const } : {}) })}
      {error && (
        <p className="field-error" id={`${id}-error`}>
          {error}
        </p>
      )}
    </div>
  );
}

/** A select's options, one per item: its value and the text the person reads. */
export function Options<T>({
  items,
  value,
  label,
}: {
  items: readonly T[];
  value(item: T): string;
  label(item: T): ReactNode;
}) {
  return (
    <>
      {items.map((item) => (
        <option key={value(item)} value={value(item)}>
          {label(item)}
        </option>
      ))}
    </>
  );
}
