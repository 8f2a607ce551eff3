// The values of a form's text fields, each bound to its input by `bind(name)`.
import { useState, type ChangeEvent } from 'react';

export function useFieldValues<T extends Record<string, string>>(initial: T) {
  const [values, setValues] = useState(initial);
  const bind = (name: keyof T) => ({
    value: values[name],
    onChange: (e: ChangeEvent<HTMLInputElement>) => setValues((v) => ({ ...v, [name]: e.target.value })),
  });
  /** Sets fields that are not text inputs (a select choosing two at once). */
  const set = (patch: Partial<T>) => setValues((v) => ({ ...v, ...patch }));
  return { values, bind, set, clear: () => setValues(initial) };
}
