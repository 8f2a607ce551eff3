// Organizations, members and invitation links (docs/decisions/0019).
import type { FastifyInstance } from 'fastify';
import type { Static } from 'typebox';
import { Type } from 'typebox';
import { operationSchema } from '../../platform/http/define-route.js';
import { DataEnvelope } from '../../platform/http/schemas/common.js';
import {
  Accepted,
  CreateOrganizationBody,
  InvitationLink,
  InviteBody,
  MemberParams,
  MemberView,
  OrganizationIdParams,
  OrganizationView,
  TokenParams,
} from '../schemas/accounts.js';
import type { Services } from '../../services.js';
import {
  acceptInvitation,
  createOrganization,
  inviteMember,
  listMembers,
  listOrganizations,
  removeMember,
} from '../organizations.js';

const tags = ['Organizations'];

export function organizationRoutes(app: FastifyInstance, s: Services) {
  app.get(
    '/api/organizations',
    operationSchema({
      operationId: 'listOrganizations',
      summary: 'List organizations',
      tags,
      auth: 'apiKey',
      success: {
        status: 200,
        schema: DataEnvelope(Type.Array(OrganizationView)),
        description: "The caller's organizations and its role in each.",
      },
      errors: ['UNAUTHORIZED', 'INTERNAL_ERROR'],
    }),
    async (req) => ({ data: await listOrganizations(s, req) }),
  );

  app.post<{ Body: Static<typeof CreateOrganizationBody> }>(
    '/api/organizations',
    operationSchema({
      operationId: 'createOrganization',
      summary: 'Create an organization',
      tags,
      auth: 'apiKey',
      description:
        'A person belongs to at most MAX_ORGANIZATIONS_PER_USER organizations when creating one (409 QUOTA_EXCEEDED).',
      body: CreateOrganizationBody,
      success: { status: 201, schema: DataEnvelope(OrganizationView), description: 'Created; the caller owns it.' },
      errors: ['UNAUTHORIZED', 'FORBIDDEN', 'INVALID_REQUEST', 'QUOTA_EXCEEDED', 'INTERNAL_ERROR'],
    }),
    async (req, reply) => reply.status(201).send({ data: await createOrganization(s, req, req.body) }),
  );

  app.get<{ Params: Static<typeof OrganizationIdParams> }>(
    '/api/organizations/:id/members',
    operationSchema({
      operationId: 'listOrganizationMembers',
      summary: 'List members',
      tags,
      auth: 'apiKey',
      params: OrganizationIdParams,
      success: { status: 200, schema: DataEnvelope(Type.Array(MemberView)), description: 'Members and roles.' },
      errors: ['UNAUTHORIZED', 'NOT_FOUND', 'INTERNAL_ERROR'],
    }),
    async (req) => ({ data: await listMembers(s, req, req.params.id) }),
  );

  app.post<{ Params: Static<typeof OrganizationIdParams>; Body: Static<typeof InviteBody> }>(
    '/api/organizations/:id/invitations',
    operationSchema({
      operationId: 'inviteOrganizationMember',
      summary: 'Invite a member',
      tags,
      auth: 'apiKey',
      description:
        'Owners only. Returns a link (valid 7 days, single use) for the invitee to open while signed in with that email.',
      params: OrganizationIdParams,
      body: InviteBody,
      success: { status: 201, schema: DataEnvelope(InvitationLink), description: 'The invitation link.' },
      errors: ['UNAUTHORIZED', 'FORBIDDEN', 'NOT_FOUND', 'INVALID_REQUEST', 'INVALID_INPUT', 'INTERNAL_ERROR'],
    }),
    async (req, reply) => reply.status(201).send({ data: await inviteMember(s, req, req.params.id, req.body) }),
  );

  app.post<{ Params: Static<typeof TokenParams> }>(
    '/api/invitations/:token/accept',
    operationSchema({
      operationId: 'acceptInvitation',
      summary: 'Accept an invitation',
      tags,
      auth: 'apiKey',
      description: "Joins the invitation's organization; the invitation must be made for the caller's email.",
      params: TokenParams,
      success: { status: 200, schema: DataEnvelope(Accepted), description: 'Joined.' },
      errors: ['UNAUTHORIZED', 'FORBIDDEN', 'NOT_FOUND', 'INVALID_REQUEST', 'INTERNAL_ERROR'],
    }),
    async (req) => ({ data: await acceptInvitation(s, req, req.params.token) }),
  );

  app.delete<{ Params: Static<typeof MemberParams> }>(
    '/api/organizations/:id/members/:userId',
    operationSchema({
      operationId: 'removeOrganizationMember',
      summary: 'Remove a member',
      tags,
      auth: 'apiKey',
      description:
        'Owners remove anyone; a member may remove itself. The keys the member made for the organization are revoked. The last owner cannot leave.',
      params: MemberParams,
      success: { status: 204, schema: Type.Null(), description: 'Removed.' },
      errors: ['UNAUTHORIZED', 'FORBIDDEN', 'NOT_FOUND', 'CONFLICT', 'INVALID_REQUEST', 'INTERNAL_ERROR'],
    }),
    async (req, reply) => {
      await removeMember(s, req, req.params.id, req.params.userId);
      return reply.status(204).send();
    },
  );
}
