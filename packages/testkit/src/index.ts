export { FakeModelProvider, type Reply, type RecordedRequest } from './fake-model-provider.js';
export { FakeTelegram, type SentMessage } from './fake-telegram.js';
export { listen, close, readJson, sendJson } from './http.js';
export { FakeStripe, stripeIds, type StripeRequest } from './fake-stripe.js';
