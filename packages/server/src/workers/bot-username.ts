// The bot's @username from an agent's health body ({ telegram: { username } }), checked for
// Telegram's own shape so nothing else reaches a link on the owner's page.
const USERNAME = /^[A-Za-z][A-Za-z0-9_]{3,31}$/;

export function botUsernameOf(health: unknown): string | null {
  const name = (health as { telegram?: { username?: unknown } } | undefined)?.telegram?.username;
  return typeof name === 'string' && USERNAME.test(name) ? name : null;
}
