import type { SessionRepo } from '../platform/store/sessions.js';
import type { OrganizationRepo } from '../platform/store/organizations.js';
import type { InvitationRepo } from '../platform/store/invitations.js';
import type { PasswordResetRepo } from '../platform/store/password-resets.js';
import type { Mailer } from './mailer.js';

export type SignupMode = 'open' | 'closed';

/** What the account verbs touch beyond the shared services (docs/decisions/0019). */
export interface Accounts {
  sessions: SessionRepo;
  organizations: OrganizationRepo;
  invitations: InvitationRepo;
  signup: SignupMode;
  resets: PasswordResetRepo;
  /** Undefined when SMTP_URL is unset: no mail is sent. */
  mailer: Mailer | undefined;
  /** Base of invitation links. */
  publicBaseUrl: string;
}
