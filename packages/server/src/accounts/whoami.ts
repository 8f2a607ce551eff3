// Who a key (or a browser session) is: the account, the organization it acts for and the key's
// own name, so `berth keys whoami` can name the account instead of a key prefix.
import type { Caller, Services } from '../services.js';
import { assertCaller } from '../services.js';
import { notFound } from '../platform/errors/app-error.js';
import { publicUser } from './credentials.js';

export async function whoami(s: Pick<Services, 'users' | 'accounts'>, caller: Caller & { keyId?: string | null }) {
  assertCaller(caller);
  const user = await s.users.findById(caller.userId);
  if (!user) throw notFound();
  const orgs = caller.organizationId ? await s.accounts.organizations.listFor(caller.userId) : [];
  const org = orgs.find((o) => o.id === caller.organizationId);
  const key = caller.keyId ? await s.users.findKey(caller.keyId) : undefined;
  return {
    user: publicUser(user),
    organization: org ? { id: org.id, name: org.name, role: org.role, createdAt: org.createdAt } : null,
    key: key ? { id: key.id, name: key.name, prefix: key.prefix } : null,
  };
}
