// Accounts, keys and organizations (docs/decisions/0019, the dashboard's contract).
import { Type } from 'typebox';
import { NO_CONTROL_CHARS, Nullable, Timestamp } from '../../platform/http/schemas/common.js';

const Id = (description: string) => Type.String({ minLength: 1, maxLength: 64, description });
// No control characters (PostgreSQL refuses a NUL in a parameter: a 500, not a 400) and no lone
// UTF-16 surrogate: PostgreSQL stores one as U+FFFD, so two different emails would become one
// account (an invitation for one accepted by the other). Ajv compiles patterns with the u flag, so
// a surrogate pair (an emoji) is one code point and passes.
const EMAIL_TEXT = '^[^\\u0000-\\u001f\\u007f\\ud800-\\udfff]*$';
export const Email = Type.String({ minLength: 3, maxLength: 320, pattern: EMAIL_TEXT, description: 'Email address' });
export const Password = Type.String({ minLength: 10, maxLength: 1024, description: 'At least 10 characters' });
const Name = Type.String({ minLength: 1, maxLength: 100, pattern: NO_CONTROL_CHARS });
export const RoleSchema = Type.Union([Type.Literal('owner'), Type.Literal('member')]);

export const UserView = Type.Object(
  { id: Type.String({ format: 'uuid' }), email: Type.String(), createdAt: Timestamp },
  { additionalProperties: false },
);

const CsrfToken = Type.String({
  description: 'Send it as the x-berth-csrf header on every cookie request that writes.',
});

export const SignupBody = Type.Object(
  {
    email: Email,
    password: Password,
    invitation: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 128,
        description: 'Token of an invitation link (needed when SIGNUP=closed)',
      }),
    ),
  },
  { additionalProperties: false },
);

export const LoginBody = Type.Object(
  {
    // The same text rule as sign-up: a NUL was a 500 on PostgreSQL, a lone surrogate merges emails.
    email: Type.String({ minLength: 1, maxLength: 320, pattern: EMAIL_TEXT }),
    password: Type.String({ minLength: 1, maxLength: 1024 }),
  },
  { additionalProperties: false },
);

export const SignedIn = Type.Object({ user: UserView, csrfToken: CsrfToken }, { additionalProperties: false });

export const OrganizationView = Type.Object(
  { id: Type.String({ format: 'uuid' }), name: Type.String(), role: RoleSchema, createdAt: Timestamp },
  { additionalProperties: false },
);

export const SessionView = Type.Object(
  {
    user: UserView,
    organizations: Type.Array(
      Type.Object(
        { id: Type.String({ format: 'uuid' }), name: Type.String(), role: RoleSchema },
        { additionalProperties: false },
      ),
    ),
    csrfToken: CsrfToken,
  },
  { additionalProperties: false },
);

export const PasswordBody = Type.Object(
  {
    currentPassword: Type.String({ minLength: 1, maxLength: 1024 }),
    newPassword: Password,
    revokeKeys: Type.Optional(
      Type.Boolean({
        description:
          'Also revoke every API key this user made (personal and for organizations): after a leak, a new password alone leaves the keys working.',
      }),
    ),
  },
  { additionalProperties: false },
);

export const KeyView = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    name: Type.String(),
    prefix: Type.String({ description: 'The first characters of the key, to tell keys apart' }),
    organizationId: Nullable(Type.String({ format: 'uuid' })),
    createdAt: Timestamp,
    lastUsedAt: Nullable(Timestamp),
    revokedAt: Nullable(Timestamp),
  },
  { additionalProperties: false },
);

export const CreateKeyBody = Type.Object(
  {
    name: Name,
    organizationId: Type.Optional(Id('The organization the key acts for; omit for a personal key')),
  },
  { additionalProperties: false },
);

export const CreatedKey = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    name: Type.String(),
    prefix: Type.String(),
    organizationId: Nullable(Type.String({ format: 'uuid' })),
    createdAt: Timestamp,
    key: Type.String({ description: 'The secret; returned this once and never again' }),
  },
  { additionalProperties: false },
);

export const KeyIdParams = Type.Object({ id: Id('API key id') });
export const OrganizationIdParams = Type.Object({ id: Id('Organization id') });
export const MemberParams = Type.Object({ id: Id('Organization id'), userId: Id('User id of the member') });
export const TokenParams = Type.Object({ token: Type.String({ minLength: 1, maxLength: 128 }) });

export const CreateOrganizationBody = Type.Object({ name: Name }, { additionalProperties: false });

export const MemberView = Type.Object(
  { userId: Type.String({ format: 'uuid' }), email: Type.String(), role: RoleSchema, joinedAt: Timestamp },
  { additionalProperties: false },
);

export const InviteBody = Type.Object({ email: Email, role: RoleSchema }, { additionalProperties: false });

export const InvitationLink = Type.Object(
  { url: Type.String({ format: 'uri', description: 'PUBLIC_BASE_URL/invite/<token>, to pass on to the invitee' }) },
  { additionalProperties: false },
);

export const Accepted = Type.Object(
  { organizationId: Type.String({ format: 'uuid' }), role: RoleSchema },
  { additionalProperties: false },
);

export const CallbackSecretView = Type.Object(
  {
    secret: Type.String({
      pattern: '^whsec_',
      description:
        "The Standard Webhooks secret (whsec_…) the status callbacks of the user's deployments are signed with.",
    }),
  },
  { additionalProperties: false },
);
