// The part of the "Channels" card every attachable channel shares (DESIGN §9.1): once attached,
// what to paste or open (the channel's own) and its Remove button; then the form that adds the
// channel or replaces its credentials, whose fields are the channel's own (ChannelIdField its account's id).
import type { ReactNode } from 'react';
import type { useChannelWrite } from '../api/channels';
import { Field } from '../components/Field';
import { Form } from '../forms/Form';
import { SubmitButton } from '../forms/SubmitButton';

export function ChannelForm({
  name,
  credentials,
  attached,
  setup,
  write: { save, remove },
  children,
}: {
  /** The channel as the person reads it: "WhatsApp". */
  name: string;
  /** What a replacement replaces: "credentials", "bot token". */
  credentials: string;
  attached: boolean;
  /** Shown with the Remove button: the attached channel's webhook or invite; none until it has one. */
  setup: ReactNode;
  write: ReturnType<typeof useChannelWrite>;
  /** The form's fields. */
  children: ReactNode;
}) {
  return (
    <>
      {setup && (
        <>
          {setup}
          <button type="button" className="secondary" onClick={() => remove.mutate()} disabled={remove.isPending}>
            {`Remove ${name}`}
          </button>
        </>
      )}
      <h3>{attached ? `Replace the ${name} ${credentials}` : `Add ${name}`}</h3>
      <Form className="stack" onSubmit={() => save.mutate()}>
        {children}
        <SubmitButton pending={save.isPending} busy="Saving…">
          {attached ? `Replace ${name} ${credentials}` : `Add ${name}`}
        </SubmitButton>
      </Form>
    </>
  );
}

/** The id a form sends: the one typed, else the stored one that ChannelIdField shows. */
export const channelIdToSend = (typed: string, stored: string | undefined) => (typed || stored || '').trim();

/** The channel account's id (digits): the stored one until the person types another. */
export function ChannelIdField({
  label,
  hint,
  typed,
  stored,
  onType,
}: {
  label: string;
  hint: string;
  typed: string;
  stored: string | undefined;
  onType(value: string): void;
}) {
  return (
    <Field
      label={label}
      hint={hint}
      inputMode="numeric"
      value={typed || (stored ?? '')}
      onChange={(e) => onType(e.target.value)}
      required
    />
  );
}
