export {
  FakeModelProvider,
  type Reply,
  type RecordedRequest,
  type RecordedTranscription,
  type RecordedMediaRequest,
  type MediaFailure,
} from './fake-model-provider.js';
export {
  CHANNEL_BOT,
  FakeTelegram,
  GETFILE_MAX_BYTES,
  GROUP_ANONYMOUS_BOT,
  type SenderChat,
  type SentMessage,
  type StoredFile,
  type FileKind,
  type TelegramUser,
} from './fake-telegram.js';
export {
  FakeWhatsApp,
  metaSignature,
  wamid,
  WINDOW_MS,
  type Inbound,
  type SentWhatsApp,
  type WhatsAppNumber,
  type WhatsAppUser,
} from './fake-whatsapp.js';
export { parseTelegramHtml, type HtmlVerdict } from './telegram-html.js';
export { type SentMedia, type MediaMethod, CAPTION_MAX_CHARS } from './fake-telegram-media.js';
export { listen, close, readJson, sendJson } from './http.js';
export { FakeStripe, stripeIds, type StripeRequest } from './fake-stripe.js';
export {
  FakeKubernetes,
  parseLabelSelector,
  type KubeObject,
  type RecordedKubeRequest,
  type WatchEventType,
} from './fake-kubernetes.js';
export { FakeKubelet, spawnRunner, type ContainerRunner, type RunningContainer } from './fake-kubernetes-kubelet.js';
export { makePng, makeOggOpus, makePdf, pdfOf } from './media-files.js';
export { promtoolFindings } from './promtool.js';
export {
  FakeDiscord,
  INTENTS,
  snowflake,
  type DiscordBot,
  type DiscordChannel,
  type DiscordUser,
  type FakeAttachment,
  type SentDiscord,
} from './fake-discord.js';
