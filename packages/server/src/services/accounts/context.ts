import type { SessionRepo } from '../../store/sessions.js';
import type { OrganizationRepo } from '../../store/organizations.js';
import type { InvitationRepo } from '../../store/invitations.js';
import type { PasswordResetRepo } from '../../store/password-resets.js';
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
