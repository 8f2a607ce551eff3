import type { SessionRepo } from '../../store/sessions.js';
import type { OrganizationRepo } from '../../store/organizations.js';
import type { InvitationRepo } from '../../store/invitations.js';

export type SignupMode = 'open' | 'closed';

/** What the account verbs touch beyond the shared services (docs/decisions/0019). */
export interface Accounts {
  sessions: SessionRepo;
  organizations: OrganizationRepo;
  invitations: InvitationRepo;
  signup: SignupMode;
  /** Base of invitation links. */
  publicBaseUrl: string;
}
