// Where a channel's platform delivers its webhooks, and the token Meta's verification handshake
// must echo. The verify token is a keyed hash of the channel's id (SecretBox.hash): stable across
// PUTs of new credentials (the owner pastes it once), unguessable without SECRETS_KEY, and nothing
// more to store.
import type { SecretBox } from '../platform/crypto/secret-box.js';

export const webhookUrlOf = (publicBaseUrl: string, c: { id: string; type: string }) =>
  `${publicBaseUrl}/hooks/${c.type}/${c.id}`;

export const verifyTokenOf = (secrets: Pick<SecretBox, 'hash'>, channelId: string) =>
  secrets.hash(`whatsapp verify token ${channelId}`).slice(0, 40);
