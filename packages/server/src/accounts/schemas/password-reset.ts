import { Type } from 'typebox';
import { Email, Password } from './accounts.js';

export const ResetRequestBody = Type.Object({ email: Email }, { additionalProperties: false });

export const ResetRequested = Type.Object(
  {
    mailed: Type.Boolean({
      description:
        'Whether this server sends mail (SMTP_URL). True never says the email has an account; false: ask the operator for a link (npx berth admin reset-link --email E).',
    }),
  },
  { additionalProperties: false },
);

export const ResetCompleteBody = Type.Object(
  {
    token: Type.String({ minLength: 20, maxLength: 128, description: 'The token from the link’s #token= part' }),
    password: Password,
  },
  { additionalProperties: false },
);
