// WhatsApp credentials checked with Meta when they are attached (issue 58: credentials Meta
// rejects make the channel `failed` with a sentence saying what to fix). One read of the phone
// number with the token (GET /{phone-number-id}); the app secret cannot be checked until Meta
// signs a webhook with it. Meta unreachable is not the owner's mistake: stored as connecting.
import type { ChannelViewData } from './schemas.js';

export const WAITING_FOR_META = "Paste the webhook URL and verify token into the Meta app's WhatsApp webhook settings.";

type Checked = { status: Extract<ChannelViewData['status'], 'connecting' | 'failed'>; statusMessage: string };

export async function checkWhatsApp(root: string, phoneNumberId: string, accessToken: string): Promise<Checked> {
  let res: Response;
  try {
    res = await fetch(`${root}/${phoneNumberId}?fields=display_phone_number,verified_name`, {
      headers: { authorization: `Bearer ${accessToken}` },
      signal: AbortSignal.timeout(5_000),
    });
  } catch {
    return {
      status: 'connecting',
      statusMessage: `Meta could not be reached to check the credentials. ${WAITING_FOR_META}`,
    };
  }
  if (res.ok) {
    await res.body?.cancel();
    return { status: 'connecting', statusMessage: WAITING_FOR_META };
  }
  const error = ((await res.json().catch(() => undefined)) as { error?: { code?: number; message?: string } })?.error;
  const said = error?.message ? ` (Meta: ${error.message.slice(0, 200)})` : '';
  if (res.status === 401 || error?.code === 190 || error?.code === 2500)
    return {
      status: 'failed',
      statusMessage: `Meta refused the access token${said}. Make a system user token with whatsapp_business_messaging in the Meta Business settings and set the channel again.`,
    };
  if (error?.code === 100 || res.status === 404)
    return {
      status: 'failed',
      statusMessage: `Meta knows no WhatsApp phone number with id ${phoneNumberId} for this token${said}. Copy the phone number ID from the Meta app's WhatsApp API setup and set the channel again.`,
    };
  return {
    status: 'connecting',
    statusMessage: `Meta answered ${res.status} when the credentials were checked${said}. ${WAITING_FOR_META}`,
  };
}
