// undici (with its WebAssembly HTTP parser, about 10 MB resident) loads with the first call that
// needs it, a model call, a Bot API call, a media download: an empty host, and one whose agents
// are idle, never carry it. Every lazy use goes through here, so it is loaded once.
type Undici = typeof import('undici');
let loading: Promise<Undici> | undefined;
export const loadUndici = (): Promise<Undici> => (loading ??= import('undici'));
