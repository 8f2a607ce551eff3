// Passwords are hashed with argon2id (the `argon2` binding ships prebuilt binaries). Parameters:
// OWASP's minimum for argon2id (19 MiB, 2 passes, 1 lane), so a 2-core control plane can still
// answer sign-ins while others are hashing.
import argon2 from 'argon2';

const OPTIONS = { type: argon2.argon2id, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

export function hashPassword(password: string): Promise<string> {
  return argon2.hash(password, OPTIONS);
}

export async function verifyPassword(hash: string, password: string): Promise<boolean> {
  try {
    return await argon2.verify(hash, password);
  } catch {
    return false;
  }
}

let dummy: Promise<string> | undefined;
/**
 * Spends the time of a real verification when there is no hash to check (unknown email), so the
 * answer's timing does not tell which emails have accounts.
 */
export async function verifyNothing(password: string): Promise<false> {
  dummy ??= hashPassword('berth-timing-equaliser');
  await verifyPassword(await dummy, password);
  return false;
}
