// Organizations, members and invitation links (docs/decisions/0019).
import type { FastifyInstance } from 'fastify';
import type { Static } from 'typebox';
import { Type } from 'typebox';
import { dataRoute, operationSchema } from '../../platform/http/define-route.js';
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
  dataRoute(
    app,
    {
      method: 'GET',
      url: '/api/organizations',
      operationId: 'listOrganizations',
      summary: 'List organizations',
      tags,
      auth: 'apiKey',
      data: Type.Array(OrganizationView),
      answer: "The caller's organizations and its role in each.",
      errors: ['UNAUTHORIZED', 'INTERNAL_ERROR'],
    },
    (req) => listOrganizations(s, req),
  );

  dataRoute<{ Body: Static<typeof CreateOrganizationBody> }>(
    app,
    {
      method: 'POST',
      url: '/api/organizations',
      operationId: 'createOrganization',
      summary: 'Create an organization',
      tags,
      auth: 'apiKey',
      description:
        'A person belongs to at most MAX_ORGANIZATIONS_PER_USER organizations when creating one (409 QUOTA_EXCEEDED).',
      body: CreateOrganizationBody,
      data: OrganizationView,
      answer: 'Created; the caller owns it.',
      status: 201,
      errors: ['UNAUTHORIZED', 'FORBIDDEN', 'INVALID_REQUEST', 'QUOTA_EXCEEDED', 'INTERNAL_ERROR'],
    },
    (req) => createOrganization(s, req, req.body),
  );

  dataRoute<{ Params: Static<typeof OrganizationIdParams> }>(
    app,
    {
      method: 'GET',
      url: '/api/organizations/:id/members',
      operationId: 'listOrganizationMembers',
      summary: 'List members',
      tags,
      auth: 'apiKey',
      params: OrganizationIdParams,
      data: Type.Array(MemberView),
      answer: 'Members and roles.',
      errors: ['UNAUTHORIZED', 'NOT_FOUND', 'INTERNAL_ERROR'],
    },
    (req) => listMembers(s, req, req.params.id),
  );

  dataRoute<{ Params: Static<typeof OrganizationIdParams>; Body: Static<typeof InviteBody> }>(
    app,
    {
      method: 'POST',
      url: '/api/organizations/:id/invitations',
      operationId: 'inviteOrganizationMember',
      summary: 'Invite a member',
      tags,
      auth: 'apiKey',
      description:
        'Owners only. Returns a link (valid 7 days, single use) for the invitee to open while signed in with that email.',
      params: OrganizationIdParams,
      body: InviteBody,
      data: InvitationLink,
      answer: 'The invitation link.',
      status: 201,
      errors: ['UNAUTHORIZED', 'FORBIDDEN', 'NOT_FOUND', 'INVALID_REQUEST', 'INVALID_INPUT', 'INTERNAL_ERROR'],
    },
    (req) => inviteMember(s, req, req.params.id, req.body),
  );

  dataRoute<{ Params: Static<typeof TokenParams> }>(
    app,
    {
      method: 'POST',
      url: '/api/invitations/:token/accept',
      operationId: 'acceptInvitation',
      summary: 'Accept an invitation',
      tags,
      auth: 'apiKey',
      description: "Joins the invitation's organization; the invitation must be made for the caller's email.",
      params: TokenParams,
      data: Accepted,
      answer: 'Joined.',
      errors: ['UNAUTHORIZED', 'FORBIDDEN', 'NOT_FOUND', 'INVALID_REQUEST', 'INTERNAL_ERROR'],
    },
    (req) => acceptInvitation(s, req, req.params.token),
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
