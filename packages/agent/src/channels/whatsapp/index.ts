// The WhatsApp channel as the registry (channels/registry.ts) loads it: the worker spec's entry
// (phone number id, access token, the Graph API root) and the runtime's context in, a Channel out.
import type { ChannelConfig, ChannelContext } from '../channel.js';
import { WhatsAppChannel } from './channel.js';

/** Meta's Graph API when neither the spec nor the host's WHATSAPP_API_ROOT names another. */
export const DEFAULT_WHATSAPP_API_ROOT = 'https://graph.facebook.com/v21.0';

export interface WhatsAppConfig extends ChannelConfig {
  readonly type: 'whatsapp';
  phoneNumberId: string;
  accessToken: string;
  apiRoot?: string;
  /** Tests shorten the waits after Meta's rate limits. */
  backoffMs?: number;
}

const isWhatsApp = (c: ChannelConfig): c is WhatsAppConfig => {
  const w = c as Partial<WhatsAppConfig>;
  return c.type === 'whatsapp' && typeof w.phoneNumberId === 'string' && typeof w.accessToken === 'string';
};

export function createChannel(config: ChannelConfig, ctx: ChannelContext): WhatsAppChannel {
  if (!isWhatsApp(config)) throw new Error(`not a WhatsApp channel's config (type "${config.type}")`);
  return new WhatsAppChannel(
    {
      phoneNumberId: config.phoneNumberId,
      accessToken: config.accessToken,
      apiRoot: config.apiRoot ?? DEFAULT_WHATSAPP_API_ROOT,
      ...(config.backoffMs !== undefined ? { backoffMs: config.backoffMs } : {}),
    },
    ctx,
  );
}
