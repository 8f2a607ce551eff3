// What the store remembers of a bot's / menu: one key per setMyCommands call the bot has been
// given (its default and each translation), so a start sends only the calls the bot lacks. A menu
// recorded whole, after its last translation, was re-sent from the top by every start that came
// before that: a host stopped while its paced queue (menu-queue.ts) was still setting 10,000 bots'
// menus re-sent every default menu it had set (issue 64, bench:density's restart).
import { createHash } from 'node:crypto';
import type { MenuCall } from './texts/index.js';

const hash = (value: unknown) => createHash('sha256').update(JSON.stringify(value)).digest('base64url');

/** The bot (the id before the token's colon; a new token of another bot is another bot) and one call. A hash: the store never holds the token. */
export const callKey = (botToken: string, call: MenuCall) => hash([botToken.split(':')[0], call]).slice(0, 22);

/** The whole menu's key as it was stored before per-call keys: a bot recorded so has every call. */
export const wholeMenuKey = (botToken: string, calls: MenuCall[]) => hash([botToken.split(':')[0], calls]);

export class MenuRecord {
  private readonly keys: string[];
  private readonly have: Set<string>;

  constructor(botToken: string, calls: MenuCall[], stored: string | undefined) {
    this.keys = calls.map((c) => callKey(botToken, c));
    const whole = stored !== undefined && stored === wholeMenuKey(botToken, calls);
    this.have = new Set(whole ? this.keys : (stored?.split(' ') ?? []));
  }

  /** Whether call `i` of the menu is still to be sent. */
  lacks(i: number) {
    return !this.have.has(this.keys[i]!);
  }

  /** Call `i` is set. */
  add(i: number) {
    this.have.add(this.keys[i]!);
  }

  /** What the store keeps: the keys of this menu's calls the bot has (an older menu's drop out). */
  toString() {
    return this.keys.filter((k) => this.have.has(k)).join(' ');
  }
}
