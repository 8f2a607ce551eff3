// Discord in the "Channels" card (DESIGN §9.1): the bot attached, replaced or removed. After
// attaching, the card shows the bot's username and the invite URL that adds it to a server with
// only the permissions it uses. The bot token is write-only: the form clears it once sent and the
// API never answers it.
import { useState } from 'react';
import type { components } from '@berth/client';
import { useChannelWrite } from '../api/channels';
import { CopyButton } from '../components/CopyButton';
import { ErrorNotice } from '../components/ErrorNotice';
import { SecretField } from '../components/Field';
import { ChannelForm, ChannelIdField, channelIdToSend } from './ChannelForm';

type Channel = components['schemas']['AssistantChannel'];
type DiscordDetails = { applicationId?: string; botUsername?: string | null; inviteUrl?: string };

export function DiscordChannelForm({
  id,
  channel,
  queryKey,
}: {
  id: string;
  channel: Channel | undefined;
  queryKey: unknown[];
}) {
  const details = (channel?.details ?? {}) as DiscordDetails;
  const [applicationId, setApp] = useState('');
  const [botToken, setToken] = useState('');
  const write = useChannelWrite(
    { id, type: 'discord', queryKey },
    () => ({ applicationId: channelIdToSend(applicationId, details.applicationId), botToken: botToken.trim() }),
    () => setToken(''),
  );
  return (
    <>
      <ErrorNotice error={write.save.error ?? write.remove.error} />
      <ChannelForm
        name="Discord"
        credentials="bot token"
        attached={Boolean(channel)}
        setup={
          channel &&
          details.inviteUrl && (
            <>
              <h3>Add the Discord bot{details.botUsername ? ` ${details.botUsername}` : ''} to a server</h3>
              <p>
                <a href={details.inviteUrl} target="_blank" rel="noreferrer">
                  Open the invite
                </a>{' '}
                <CopyButton value={details.inviteUrl} label="Copy invite URL" />
              </p>
              <p className="hint">It answers DMs, and in servers when it is mentioned or replied to.</p>
            </>
          )
        }
        write={write}
      >
        <ChannelIdField
          label="Application ID"
          hint="From the Discord Developer Portal: your application → General Information."
          typed={applicationId}
          stored={details.applicationId}
          onType={setApp}
        />
        <SecretField
          label="Bot token"
          hint="Bot → Reset Token. Turn on “Message Content Intent” on the same page. Write-only: never shown again."
          value={botToken}
          onChange={(e) => setToken(e.target.value)}
        />
      </ChannelForm>
    </>
  );
}
