// The model of an activation or update, picked from the catalog for the slot's mode. If the
// catalog cannot be loaded the person is told so and can try again; there is no free-text fallback.
import { useId } from 'react';
import { modelLabel, modelsFor, useCatalog } from '../api/catalog';
import type { ApiMode } from '../api/deployments';
import { ErrorNotice } from './ErrorNotice';
import { Options } from './Field';

export interface ModelChoice {
  provider: string;
  id: string;
}

// Model ids may hold "/" (a router's "vendor/model"), never a newline.
const keyOf = (m: ModelChoice) => `${m.provider}\n${m.id}`;

export function ModelSelect({
  mode,
  value,
  current,
  onChange,
  error,
}: {
  mode: ApiMode;
  value: ModelChoice;
  /** The deployment's model on an update: kept selectable even if the catalog no longer lists it. */
  current?: ModelChoice;
  onChange(m: ModelChoice): void;
  error?: string;
}) {
  const id = useId();
  const catalog = useCatalog();
  if (catalog.isPending) return <p className="muted">Loading the model catalog…</p>;
  if (catalog.error) {
    return (
      <div className="field">
        <ErrorNotice error={catalog.error} title="The model list could not be loaded." />
        <div>
          <button type="button" className="secondary" onClick={() => catalog.refetch()}>
            Try again
          </button>
        </div>
      </div>
    );
  }
  const models = modelsFor(catalog.data, mode);
  const listed = (m: ModelChoice) => models.some((x) => keyOf(x) === keyOf(m));
  const hint =
    mode === 'byok'
      ? 'Prices are what your provider charges on your key.'
      : "Replies are paid from the plan's monthly credits at these prices.";
  const described = [`${id}-hint`, error && `${id}-error`].filter(Boolean).join(' ');
  return (
    <div className="field">
      <label htmlFor={id}>Model</label>
      <p className="hint" id={`${id}-hint`}>
        {hint}
      </p>
      <select
        id={id}
        className="model-select"
        required
        value={value.id ? keyOf(value) : ''}
        aria-invalid={error ? true : undefined}
        aria-describedby={described}
        onChange={(e) => {
          const [provider = '', modelId = ''] = e.target.value.split('\n');
          onChange({ provider, id: modelId });
        }}
      >
        <option value="" disabled>
          Choose a model
        </option>
        {current?.id && !listed(current) && (
          <option value={keyOf(current)}>{current.id} — current model, no longer in the catalog</option>
        )}
        <Options items={models} value={(m) => keyOf(m)} label={(m) => modelLabel(m, mode)} />
      </select>
      {error && (
        <p className="field-error" id={`${id}-error`}>
          {error}
        </p>
      )}
    </div>
  );
}
