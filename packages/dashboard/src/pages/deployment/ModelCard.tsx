// "Model" (DESIGN §9.3): an active assistant changes its model live through PUT …/model, picked
// from the catalog; the status stays active and the next message uses it. Other statuses change the
// model with the rest of the record in Actions → Update settings (the spec's PATCH rule).
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { api, unwrap } from '../../api/client';
import type { Deployment } from '../../api/deployments';
import { ErrorNotice, fieldErrors } from '../../components/ErrorNotice';
import { ModelSelect, type ModelChoice } from '../../components/ModelSelect';
import { Form } from '../../forms/Form';
import { SubmitButton } from '../../forms/SubmitButton';

const current = (d: Deployment): ModelChoice => ({ provider: d.modelProvider ?? '', id: d.modelId ?? '' });

export function ModelCard({ d }: { d: Deployment }) {
  const qc = useQueryClient();
  const [choice, setChoice] = useState<ModelChoice>(current(d));
  const [applied, setApplied] = useState<string | undefined>();
  // Follows the record when it changes elsewhere (another tab, the CLI).
  useEffect(() => setChoice(current(d)), [d.modelProvider, d.modelId]);
  const change = useMutation({
    mutationFn: () =>
      unwrap(
        api.PUT('/api/v1/assistants/{deploymentId}/model', {
          params: { path: { deploymentId: d.id } },
          body: { modelId: choice.id, ...(d.apiMode === 'byok' ? { modelProvider: choice.provider } : {}) },
        }),
      ),
    onSuccess: (saved) => {
      setApplied(saved.modelId ?? undefined);
      return qc.invalidateQueries({ queryKey: ['deployments'] });
    },
  });
  const errors = fieldErrors(change.error, ['modelId', 'modelProvider'] as const);
  return (
    <section aria-labelledby="model-title" className="card">
      <h2 id="model-title">Model</h2>
      <p className="muted small">Applies live: the assistant keeps running and answers its next message with it.</p>
      <Form className="stack" onSubmit={() => change.mutate()}>
        <ModelSelect
          mode={d.apiMode}
          value={choice}
          current={current(d)}
          onChange={(m) => {
            setApplied(undefined);
            setChoice(m);
          }}
          error={errors.byField.modelId ?? errors.byField.modelProvider}
        />
        <ErrorNotice error={errors.general} />
        <SubmitButton pending={change.isPending} busy="Applying…">
          Apply model
        </SubmitButton>
        <p role="status" className={applied ? 'notice' : 'visually-hidden'}>
          {applied ? `Now answering with ${applied}.` : ''}
        </p>
      </Form>
    </section>
  );
}
