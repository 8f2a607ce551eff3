// Attaching, replacing and removing one of an assistant's channels (DESIGN §9.1): the PUT and
// DELETE of …/channels/{type}, each refreshing the card's list once it answers.
import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { components } from '@berth/client';
import { api, unwrap } from './client';

type Credentials =
  | components['schemas']['WhatsAppChannelCredentials']
  | components['schemas']['DiscordChannelCredentials'];

/**
 * `save` sends what `credentials` answers at the time and calls `saved` before the refresh (the
 * form clears its write-only fields); `remove` takes the channel off.
 */
export function useChannelWrite(
  { id, type, queryKey }: { id: string; type: 'whatsapp' | 'discord'; queryKey: unknown[] },
  credentials: () => Credentials,
  saved: () => void,
) {
  const qc = useQueryClient();
  const path = { params: { path: { deploymentId: id, type } } };
  const save = useMutation({
    mutationFn: () =>
      unwrap(api.PUT('/api/v1/assistants/{deploymentId}/channels/{type}', { ...path, body: credentials() })),
    onSuccess: () => {
      saved();
      return qc.invalidateQueries({ queryKey });
    },
  });
  const remove = useMutation({
    mutationFn: () => unwrap(api.DELETE('/api/v1/assistants/{deploymentId}/channels/{type}', path)),
    onSuccess: () => qc.invalidateQueries({ queryKey }),
  });
  return { save, remove };
}
