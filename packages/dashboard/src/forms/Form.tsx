// A form that hands its submission to the app (usually a mutation) instead of the browser.
import type { FormHTMLAttributes } from 'react';

interface FormProps extends Omit<FormHTMLAttributes<HTMLFormElement>, 'onSubmit'> {
  onSubmit(): void;
}

export function Form({ onSubmit, ...form }: FormProps) {
  return (
    <form
      {...form}
      onSubmit={(e) => {
        e.preventDefault();
        onSubmit();
      }}
    />
  );
}
