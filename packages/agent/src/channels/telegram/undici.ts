// undici loads with the first bot that calls Telegram: an empty host never carries it.
type Undici = typeof import('undici');
let loading: Promise<Undici> | undefined;
export const loadUndici = () => (loading ??= import('undici'));
