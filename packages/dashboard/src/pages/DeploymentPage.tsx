// One deployment: the guided buy → pay → activate steps, its record, usage and allowance, and the
// actions its state allows (the same rules as the API's state machine; the API has the last word).
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { api, unwrap } from '../api/client';
import { checkoutLinks, useDeployment, type Deployment } from '../api/deployments';
import { CallbackSecret } from '../components/CallbackSecret';
import { ConfirmDialog } from '../components/ConfirmDialog';
import { ConnectPanel } from '../components/ConnectPanel';
import { DeployProgress } from '../components/DeployProgress';
import { ErrorNotice, fieldErrors } from '../components/ErrorNotice';
import { Field } from '../components/Field';
import { ModelSelect, type ModelChoice } from '../components/ModelSelect';
import { when } from '../components/format';
import { PaymentBadge, StatusBadge } from '../components/StatusBadge';
import { Form } from '../forms/Form';
import { SubmitButton } from '../forms/SubmitButton';
import { useFieldValues } from '../forms/useFieldValues';
import { SettingsCard } from './SettingsCard';
import { ModelCard } from './deployment/ModelCard';
import { UsageCard } from './deployment/UsageCard';
import { SpendCapCard } from './deployment/SpendCapCard';
import { BillingCard } from './deployment/BillingCard';
import { McpCard } from './McpCard';
import { ChannelsCard } from './ChannelsCard';

export function DeploymentPage() {
  const { id = '' } = useParams();
  const query = useDeployment(id);
  const d = query.data;
  if (query.error) {
    return (
      <section>
        <h1>Deployment</h1>
        <ErrorNotice error={query.error} title="This deployment could not be loaded." />
        <Link to="/">Back to deployments</Link>
      </section>
    );
  }
  if (!d) return <p className="muted">Loading…</p>;
  const guided = d.isPrebuy && d.status === 'purchased';
  return (
    <>
      <p className="crumbs">
        <Link to="/">Deployments</Link> / <span aria-current="page">{d.name || 'New slot'}</span>
      </p>
      <div className="row spread">
        <h1>{d.name || `Slot ${d.id.slice(0, 8)}`}</h1>
        <div className="row">
          <StatusBadge status={d.status} />
          <PaymentBadge status={d.paymentStatus} />
        </div>
      </div>
      <p role="status" className={d.statusMessage ? 'notice' : 'visually-hidden'}>
        {d.statusMessage ?? `Status: ${d.status}.`}
      </p>
      <DeployProgress d={d} />
      {guided && <GuidedActivation d={d} />}
      {d.status === 'active' && (
        <p>
          <Link className="button" to={`/deployments/${d.id}/chat`}>
            Open the chat playground
          </Link>
        </p>
      )}
      {d.status === 'active' && <ConnectPanel id={d.id} />}
      <div className="grid">
        <section aria-labelledby="record-title" className="card">
          <h2 id="record-title">Details</h2>
          <dl className="record">
            <dt>Id</dt>
            <dd className="mono">{d.id}</dd>
            <dt>Plan</dt>
            <dd>{d.apiMode}</dd>
            <dt>Model</dt>
            <dd className="mono">{d.modelId ? `${d.modelProvider} / ${d.modelId}` : '—'}</dd>
            <dt>Channel</dt>
            <dd>{d.channelType}</dd>
            <dt>Worker</dt>
            <dd className="mono">{d.workerName || '—'}</dd>
            <dt>Paid until</dt>
            <dd>{d.paymentStatus === 'pending' ? '—' : when(d.currentPeriodEnd)}</dd>
            <dt>Status callback</dt>
            <dd className="mono">{d.userCallbackUrl ?? 'none'}</dd>
            <dt>Callback secret</dt>
            <dd>
              <CallbackSecret buyerId={d.userId} />
            </dd>
            <dt>Created</dt>
            <dd>{when(d.createdAt)}</dd>
            <dt>Updated</dt>
            <dd>{when(d.updatedAt)}</dd>
          </dl>
        </section>
        <UsageCard d={d} />
      </div>
      {/* The owner's console (DESIGN §9.3): one card per thing the owner changes, each saying whether it
          applies live. A new card (channels, MCP servers) is one more line here. */}
      {d.status === 'active' && <ModelCard d={d} />}
      {d.paymentStatus !== 'pending' && <SettingsCard id={d.id} active={d.status === 'active'} />}
      {d.paymentStatus !== 'pending' && d.apiMode === 'byok' && <SpendCapCard d={d} />}
      {d.paymentStatus !== 'pending' && <BillingCard d={d} />}
      {d.paymentStatus !== 'pending' && <McpCard id={d.id} active={d.status === 'active'} />}
      {d.paymentStatus !== 'pending' && <ChannelsCard id={d.id} />}
      <Actions d={d} guided={guided} />
    </>
  );
}

function GuidedActivation({ d }: { d: Deployment }) {
  const paid = d.paymentStatus === 'paid';
  const checkout = checkoutLinks.get(d.id);
  return (
    <section aria-labelledby="steps-title" className="card">
      <h2 id="steps-title">Set up this slot</h2>
      <ol className="steps">
        <li className="done">
          <strong>Bought</strong> a {d.apiMode} slot.
        </li>
        <li className={paid ? 'done' : 'current'} aria-current={paid ? undefined : 'step'}>
          <strong>Pay</strong>{' '}
          {paid ? (
            'done: the slot is paid.'
          ) : checkout ? (
            <>
              at checkout, then come back here; this page notices the payment by itself.{' '}
              <a className="button" href={checkout}>
                Pay at checkout
              </a>
            </>
          ) : (
            'at the checkout link you were given when you bought it (it is shown once, in the tab that bought it).'
          )}
        </li>
        <li className={paid ? 'current' : undefined} aria-current={paid ? 'step' : undefined}>
          <strong>Activate</strong> with your Telegram bot token and a model.
          {paid && <ActivateForm d={d} />}
        </li>
      </ol>
    </section>
  );
}

const ACTIVATE_FIELDS = [
  'name',
  'modelProvider',
  'modelId',
  'messengerBotToken',
  'modelApiKey',
  'callbackUrl',
] as const;

function ActivateForm({ d }: { d: Deployment }) {
  const byok = d.apiMode === 'byok';
  const qc = useQueryClient();
  const {
    values: v,
    bind,
    set,
  } = useFieldValues({
    name: '',
    modelProvider: '',
    modelId: '',
    messengerBotToken: '',
    modelApiKey: '',
    callbackUrl: '',
  });
  const activate = useMutation({
    mutationFn: () =>
      unwrap(
        api.POST('/api/v1/assistants/{deploymentId}/activate', {
          params: { path: { deploymentId: d.id } },
          body: {
            name: v.name,
            modelId: v.modelId,
            messengerBotToken: v.messengerBotToken,
            ...(byok ? { modelProvider: v.modelProvider, modelApiKey: v.modelApiKey } : {}),
            ...(v.callbackUrl ? { callbackUrl: v.callbackUrl } : {}),
          },
        }),
      ),
    onSuccess: () => qc.invalidateQueries({ queryKey: ['deployments'] }),
  });
  const errors = fieldErrors(activate.error, ACTIVATE_FIELDS);
  return (
    <Form className="stack" onSubmit={() => activate.mutate()}>
      <SettingsFields d={d} bind={bind} set={set} values={v} errors={errors.byField} />
      <Field
        label="Status callback URL (optional)"
        hint="An https address that receives a signed event on every status change."
        type="url"
        {...bind('callbackUrl')}
        error={errors.byField.callbackUrl}
      />
      <ErrorNotice error={errors.general} />
      <SubmitButton pending={activate.isPending} busy="Activating…">
        Activate
      </SubmitButton>
    </Form>
  );
}

/**
 * The settings activation asks for and an update changes (a byok slot also brings its provider and
 * key). An update shows the current values, asks for nothing and keeps what is left empty.
 */
function SettingsFields({
  d,
  bind,
  set,
  values,
  errors,
  update = false,
}: {
  d: Deployment;
  bind(name: (typeof UPDATE_FIELDS)[number]): { value: string; onChange(e: React.ChangeEvent<HTMLInputElement>): void };
  set(patch: { modelProvider: string; modelId: string }): void;
  values: { modelProvider: string; modelId: string };
  errors: Partial<Record<string, string>>;
  update?: boolean;
}) {
  const byok = d.apiMode === 'byok';
  /** A credential: on activation required, with where it comes from; an update asks for a new one or keeps it. */
  const credential = (name: 'messengerBotToken' | 'modelApiKey', label: string, newLabel: string, source: string) => (
    <Field
      label={update ? newLabel : label}
      hint={update ? undefined : `${source} Stored encrypted; never shown again.`}
      type="password"
      autoComplete="off"
      required={!update}
      {...bind(name)}
      error={errors[name]}
    />
  );
  return (
    <>
      <Field label="Name" required={!update} {...bind('name')} error={errors.name} />
      <ModelSelect
        mode={d.apiMode}
        value={{ provider: values.modelProvider, id: values.modelId }}
        current={update ? currentModel(d) : undefined}
        onChange={(m) => set({ modelProvider: m.provider, modelId: m.id })}
        error={errors.modelId ?? errors.modelProvider}
      />
      {credential('messengerBotToken', 'Telegram bot token', 'New Telegram bot token', 'From @BotFather.')}
      {byok && credential('modelApiKey', 'Model API key', 'New model API key', "Your provider's key.")}
    </>
  );
}

type Verb = 'redeploy' | 'stop' | 'delete';

function Actions({ d, guided }: { d: Deployment; guided: boolean }) {
  const qc = useQueryClient();
  const navigate = useNavigate();
  const [confirm, setConfirm] = useState<Verb | undefined>();
  const [editing, setEditing] = useState(false);
  const path = { params: { path: { deploymentId: d.id } } };
  const act = useMutation({
    mutationFn: async (verb: Verb) => {
      if (verb === 'redeploy')
        await unwrap(api.POST('/api/v1/assistants/{deploymentId}/redeploy', { ...path, body: {} }));
      if (verb === 'stop') await unwrap(api.POST('/api/v1/assistants/{deploymentId}/stop', path));
      if (verb === 'delete') await unwrap(api.DELETE('/api/v1/assistants/{deploymentId}', path));
      return verb;
    },
    onSuccess: (verb) => {
      setConfirm(undefined);
      qc.invalidateQueries({ queryKey: ['deployments'] });
      if (verb === 'delete') navigate('/');
    },
  });
  // A slot not activated yet is set up by the activation form above; it can only be deleted here.
  const canUpdate = !guided && ['purchased', 'stopped', 'failed'].includes(d.status);
  const canRedeploy = ['active', 'failed', 'stopped'].includes(d.status);
  const canStop = ['active', 'deploying', 'failed'].includes(d.status);
  return (
    <section aria-labelledby="actions-title" className="card">
      <h2 id="actions-title">Actions</h2>
      {/* Three buttons of a stopped slot wrap on a phone instead of widening the page. */}
      <div className="row wrap">
        {canUpdate && (
          <button type="button" className="secondary" aria-expanded={editing} onClick={() => setEditing(!editing)}>
            Update settings
          </button>
        )}
        {canRedeploy && (
          <button type="button" className="secondary" onClick={() => setConfirm('redeploy')}>
            Redeploy
          </button>
        )}
        {canStop && (
          <button type="button" className="secondary" onClick={() => setConfirm('stop')}>
            Stop
          </button>
        )}
        <button type="button" className="danger" onClick={() => setConfirm('delete')}>
          Delete
        </button>
      </div>
      {!canUpdate && !guided && (
        <p className="muted small">
          The name, bot token and model key change while the deployment is stopped or failed, then apply at the next
          redeploy. The model, persona and access apply live.
        </p>
      )}
      {!confirm && <ErrorNotice error={act.error} />}
      {editing && canUpdate && <UpdateForm d={d} onDone={() => setEditing(false)} />}
      <ConfirmDialog
        open={confirm !== undefined}
        title={
          confirm === 'delete'
            ? 'Delete this deployment?'
            : confirm === 'stop'
              ? 'Stop this deployment?'
              : 'Redeploy this deployment?'
        }
        confirmLabel={confirm === 'delete' ? 'Delete' : confirm === 'stop' ? 'Stop' : 'Redeploy'}
        danger={confirm === 'delete'}
        busy={act.isPending}
        onConfirm={() => confirm && act.mutate(confirm)}
        onCancel={() => {
          setConfirm(undefined);
          act.reset();
        }}
      >
        <p>
          {confirm === 'delete'
            ? 'The assistant stops answering, its subscription is canceled and the slot is gone. This cannot be undone.'
            : confirm === 'stop'
              ? 'The assistant stops answering in Telegram and through the API until you redeploy it.'
              : 'The assistant restarts with its current settings.'}
        </p>
        <ErrorNotice error={act.error} />
      </ConfirmDialog>
    </section>
  );
}

const currentModel = (d: Deployment): ModelChoice => ({ provider: d.modelProvider ?? '', id: d.modelId ?? '' });

const UPDATE_FIELDS = ['name', 'modelProvider', 'modelId', 'messengerBotToken', 'modelApiKey'] as const;

function UpdateForm({ d, onDone }: { d: Deployment; onDone(): void }) {
  const qc = useQueryClient();
  const current = currentModel(d);
  const {
    values: v,
    bind,
    set,
  } = useFieldValues({
    name: d.name,
    modelProvider: current.provider,
    modelId: current.id,
    messengerBotToken: '',
    modelApiKey: '',
  });
  const update = useMutation({
    mutationFn: () => {
      // Only what was changed is sent; secrets left empty stay as they are.
      const body: Partial<typeof v> = {};
      const unchanged = { name: d.name, modelProvider: current.provider, modelId: current.id } as Partial<typeof v>;
      for (const k of UPDATE_FIELDS) if (v[k] !== '' && v[k] !== unchanged[k]) body[k] = v[k];
      // A new model is sent whole: its id, and for byok the provider that serves it.
      if (body.modelProvider || body.modelId) {
        body.modelId = v.modelId;
        if (d.apiMode === 'byok') body.modelProvider = v.modelProvider;
        else delete body.modelProvider;
      }
      return unwrap(api.PATCH('/api/v1/assistants/{deploymentId}', { params: { path: { deploymentId: d.id } }, body }));
    },
    onSuccess: () => {
      qc.invalidateQueries({ queryKey: ['deployments'] });
      onDone();
    },
  });
  const errors = fieldErrors(update.error, UPDATE_FIELDS);
  return (
    <Form className="stack" onSubmit={() => update.mutate()}>
      <h3>Update settings</h3>
      <p className="muted small">The form shows the current name and model; leave a token or key empty to keep it.</p>
      <SettingsFields d={d} bind={bind} set={set} values={v} errors={errors.byField} update />
      <ErrorNotice error={errors.general} />
      <div className="row">
        <SubmitButton pending={update.isPending} busy="Saving…">
          Save
        </SubmitButton>
        <button type="button" className="secondary" onClick={onDone}>
          Cancel
        </button>
      </div>
    </Form>
  );
}
