// Served assistants each on a bot of its own on the file's FakeTelegram, so tests share no chats,
// limits, menus or pollers: bot ids count up from the file's first, tokens carry the file's tag.
import type { FakeModelProvider, FakeTelegram } from '@berth/testkit';
import type { AssistantConfig } from '../../src/runtime/assistant.js';
import { waitUntil } from './bed.js';
import { startServe } from './serve.js';

type ServeOptions = Omit<
  NonNullable<Parameters<typeof startServe>[0]>,
  'provider' | 'telegram' | 'botToken' | 'config'
>;

export function ownBots(
  bed: { tg: FakeTelegram; provider: FakeModelProvider },
  opts: { firstId: number; tag: string; usernamePrefix: string },
) {
  let next = opts.firstId;
  /** The next bot id's token, `<id>:AA<tag>_<suffix>`, for a test that adds and serves its bot itself. */
  const token = (suffix: string) => `${next++}:AA${opts.tag}_${suffix}`;
  /** An assistant on a new bot (`<prefix><id>_bot` unless named), once the bot is connected. */
  const serve = async (
    config: Partial<AssistantConfig> | ((botToken: string) => Partial<AssistantConfig>),
    more: ServeOptions & { username?: string } = {},
  ) => {
    const { username = `${opts.usernamePrefix}${next}_bot`, ...serveOptions } = more;
    const botToken = token(username);
    bed.tg.addBot(botToken, username);
    const s = await startServe({
      provider: bed.provider,
      telegram: bed.tg,
      botToken,
      ...serveOptions,
      config: typeof config === 'function' ? config(botToken) : config,
    });
    await waitUntil(() => s.agent.health().ready, 'the bot connects');
    return { ...s, token: botToken, username };
  };
  return { token, serve };
}
