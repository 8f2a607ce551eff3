// "Channels" (DESIGN §9.1): how each of the assistant's channels is doing, and WhatsApp attached,
// replaced or removed. After attaching, the card shows the webhook URL and verify token to paste
// into the Meta app's WhatsApp webhook settings. The access token and app secret are write-only:
// the form clears them once sent and the API never answers them.
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import type { components } from '@berth/client';
import { useChannelWrite } from '../api/channels';
import { api, unwrap } from '../api/client';
import { deploymentsKey } from '../api/deployments';
import { CopyButton } from '../components/CopyButton';
import { ErrorNotice } from '../components/ErrorNotice';
import { SecretField } from '../components/Field';
import { when } from '../components/format';
import { ChannelForm, ChannelIdField, channelIdToSend } from './ChannelForm';
import { DiscordChannelForm } from './DiscordChannelForm';

type Channel = components['schemas']['AssistantChannel'];
type WhatsAppDetails = { phoneNumberId?: string; webhookUrl?: string; verifyToken?: string };

const NAMES: Record<Channel['type'], string> = { telegram: 'Telegram', whatsapp: 'WhatsApp', discord: 'Discord' };

export function ChannelsCard({ id }: { id: string }) {
  const key = [...deploymentsKey(), id, 'channels'];
  const channels = useQuery({
    queryKey: key,
    queryFn: () =>
      unwrap(api.GET('/api/v1/assistants/{deploymentId}/channels', { params: { path: { deploymentId: id } } })),
    refetchInterval: 5000,
  });
  const [phoneNumberId, setPhone] = useState('');
  const [accessToken, setToken] = useState('');
  const [appSecret, setSecret] = useState('');
  const whatsapp = channels.data?.find((c) => c.type === 'whatsapp');
  const details = (whatsapp?.details ?? {}) as WhatsAppDetails;
  const write = useChannelWrite(
    { id, type: 'whatsapp', queryKey: key },
    () => ({
      phoneNumberId: channelIdToSend(phoneNumberId, details.phoneNumberId),
      accessToken: accessToken.trim(),
      appSecret: appSecret.trim(),
    }),
    () => {
      setToken('');
      setSecret('');
    },
  );
  return (
    <section aria-labelledby="channels-title" className="card">
      <h2 id="channels-title">Channels</h2>
      <ErrorNotice error={channels.error ?? write.save.error ?? write.remove.error} />
      {channels.data?.length ? (
        // A list, not a table: the reasons are sentences, and wrap.
        <ul aria-label="Channels and their status">
          {channels.data.map((c) => (
            <li key={c.type}>
              <strong>{NAMES[c.type]}</strong>: {c.status}
              {c.statusMessage ? ` — ${c.statusMessage}` : ''}{' '}
              <span className="muted small">({when(c.updatedAt)})</span>
            </li>
          ))}
        </ul>
      ) : (
        <p className="muted">No channels yet: Telegram comes with activation; WhatsApp is added below.</p>
      )}
      <ChannelForm
        name="WhatsApp"
        credentials="credentials"
        attached={Boolean(whatsapp)}
        setup={
          whatsapp &&
          details.webhookUrl &&
          details.verifyToken && (
            <>
              <h3>Paste these into the Meta app (WhatsApp → Configuration → Webhook)</h3>
              <dl>
                <dt>Callback URL</dt>
                <dd>
                  <code>{details.webhookUrl}</code> <CopyButton value={details.webhookUrl} label="Copy callback URL" />
                </dd>
                <dt>Verify token</dt>
                <dd>
                  <code>{details.verifyToken}</code>{' '}
                  <CopyButton value={details.verifyToken} label="Copy verify token" />
                </dd>
              </dl>
              <p className="hint">Then subscribe the webhook to the “messages” field.</p>
            </>
          )
        }
        write={write}
      >
        <ChannelIdField
          label="Phone number ID"
          hint="From the Meta app: WhatsApp → API Setup (digits, not the phone number itself)."
          typed={phoneNumberId}
          stored={details.phoneNumberId}
          onType={setPhone}
        />
        <SecretField
          label="Access token"
          hint="A system user token with whatsapp_business_messaging. Write-only: never shown again."
          value={accessToken}
          onChange={(e) => setToken(e.target.value)}
        />
        <SecretField
          label="App secret"
          hint="The Meta app's secret (App settings → Basic), 32 characters. Write-only."
          value={appSecret}
          onChange={(e) => setSecret(e.target.value)}
        />
      </ChannelForm>
      <DiscordChannelForm id={id} channel={channels.data?.find((c) => c.type === 'discord')} queryKey={key} />
    </section>
  );
}
