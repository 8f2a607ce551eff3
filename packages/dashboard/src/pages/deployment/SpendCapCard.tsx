// "Spend cap" (byok, DESIGN §9.3): what the assistant may spend on the owner's own key per billing
// period, through PUT …/limits; the current cap is the period's allowance in GET …/usage.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useId, useState } from 'react';
import { api, unwrap } from '../../api/client';
import { type Deployment, deploymentsKey } from '../../api/deployments';
import { ErrorNotice } from '../../components/ErrorNotice';
import { Form } from '../../forms/Form';
import { SubmitButton } from '../../forms/SubmitButton';

/** Dollars as typed ("12", "12.50", "$12"), or a sentence. Empty: no cap. */
export function parseCap(raw: string): number | null | string {
  const t = raw.trim().replace(/^\$/, '');
  if (!t) return null;
  if (!/^\d+(\.\d{1,2})?$/.test(t) || Number(t) > 1_000_000)
    return 'The spend cap is an amount in US dollars from 0 to 1,000,000, like 25 or 12.50; empty for no cap.';
  return Number(t);
}

export function SpendCapCard({ d }: { d: Deployment }) {
  const qc = useQueryClient();
  const inputId = useId();
  const usage = useQuery({
    queryKey: [...deploymentsKey(), d.id, 'usage', 'cap'],
    queryFn: () =>
      unwrap(api.GET('/api/v1/assistants/{deploymentId}/usage', { params: { path: { deploymentId: d.id } } })),
  });
  const [typed, setTyped] = useState('');
  const [problem, setProblem] = useState<string | undefined>();
  const [saved, setSaved] = useState(false);
  const cap = usage.data?.allowanceUsd;
  useEffect(() => setTyped(cap === null || cap === undefined ? '' : String(cap)), [cap]);
  const save = useMutation({
    mutationFn: (monthlySpendCapUsd: number | null) =>
      unwrap(
        api.PUT('/api/v1/assistants/{deploymentId}/limits', {
          params: { path: { deploymentId: d.id } },
          body: { monthlySpendCapUsd },
        }),
      ),
    onSuccess: () => {
      setSaved(true);
      return qc.invalidateQueries({ queryKey: [...deploymentsKey(), d.id, 'usage'] });
    },
  });
  return (
    <section aria-labelledby="cap-title" className="card">
      <h2 id="cap-title">Spend cap</h2>
      <p className="muted small">
        What this assistant may spend on your own model key per billing period. Applies at once; beyond it the assistant
        says it has reached its limit.
      </p>
      <Form
        className="stack"
        onSubmit={() => {
          const parsed = parseCap(typed);
          if (typeof parsed === 'string') return setProblem(parsed);
          setProblem(undefined);
          setSaved(false);
          save.mutate(parsed);
        }}
      >
        <div className="field">
          <label htmlFor={inputId}>Cap in US dollars (empty: no cap)</label>
          <input
            id={inputId}
            inputMode="decimal"
            value={typed}
            aria-invalid={problem ? true : undefined}
            aria-describedby={problem ? `${inputId}-error` : undefined}
            onChange={(e) => setTyped(e.target.value)}
          />
          {problem && (
            <p className="field-error" id={`${inputId}-error`}>
              {problem}
            </p>
          )}
        </div>
        <ErrorNotice error={save.error ?? usage.error} />
        <SubmitButton pending={save.isPending} busy="Saving…">
          Save spend cap
        </SubmitButton>
        <p role="status" className={saved ? 'notice' : 'visually-hidden'}>
          {saved ? (cap === null ? 'No spend cap.' : `Spend cap saved: $${cap} per billing period.`) : ''}
        </p>
      </Form>
    </section>
  );
}
