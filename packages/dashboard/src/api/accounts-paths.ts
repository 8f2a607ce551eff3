// TEMPORARY: the accounts routes of ACCOUNTS-CONTRACT.md typed by hand in openapi-typescript's shape,
// until branch `accounts` documents them in the OpenAPI document and `npm run generate:client`
// picks them up. Then this file goes and the dashboard uses @berth/client's generated paths alone.
type J<T> = { content: { 'application/json': T } };
type Answer<T> = { headers: { [name: string]: unknown } } & J<T>;
type Failure = Answer<{ error: { code: string; message: string; details?: unknown } }>;
type NoParams = { query?: never; header?: never; path?: never; cookie?: never };
type Op<Body, Res, Path = never, Status extends number = 200> = {
  parameters: [Path] extends [never] ? NoParams : { query?: never; header?: never; path: Path; cookie?: never };
  responses: {
    [S in Status]: [Res] extends [never] ? { headers: { [name: string]: unknown }; content?: never } : Answer<Res>;
  } & {
    400: Failure;
    401: Failure;
    403: Failure;
    404: Failure;
    409: Failure;
    429: Failure;
  };
} & ([Body] extends [never] ? { requestBody?: never } : { requestBody: J<Body> });
type Item<M> = { parameters: NoParams } & M;

export interface User {
  id: string;
  email: string;
  createdAt: string;
}
export interface SessionOrganization {
  id: string;
  name: string;
  role: 'owner' | 'member';
}
export interface ApiKeyView {
  id: string;
  name: string;
  prefix: string;
  organizationId: string | null;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}
export interface Organization extends SessionOrganization {
  createdAt: string;
}
export interface Member {
  userId: string;
  email: string;
  role: 'owner' | 'member';
  joinedAt: string;
}
type Signed = { data: { user: User; csrfToken: string } };

export interface AccountsPaths {
  '/api/auth/signup': Item<{
    post: Op<{ email: string; password: string; invitation?: string }, Signed, never, 201>;
  }>;
  '/api/auth/login': Item<{ post: Op<{ email: string; password: string }, Signed> }>;
  '/api/auth/session': Item<{
    get: Op<never, { data: { user: User; organizations: SessionOrganization[]; csrfToken: string } }>;
  }>;
  '/api/auth/logout': Item<{ post: Op<never, never, never, 204> }>;
  '/api/keys': Item<{
    get: Op<never, { data: ApiKeyView[] }>;
    post: Op<
      { name: string; organizationId?: string },
      { data: Omit<ApiKeyView, 'lastUsedAt' | 'revokedAt'> & { key: string } },
      never,
      201
    >;
  }>;
  '/api/keys/{id}': Item<{ delete: Op<never, never, { id: string }, 204> }>;
  '/api/organizations': Item<{
    get: Op<never, { data: Organization[] }>;
    post: Op<{ name: string }, { data: Organization }, never, 201>;
  }>;
  '/api/organizations/{id}/members': Item<{ get: Op<never, { data: Member[] }, { id: string }> }>;
  '/api/organizations/{id}/invitations': Item<{
    post: Op<{ email: string; role: 'owner' | 'member' }, { data: { url: string } }, { id: string }, 201>;
  }>;
  '/api/organizations/{id}/members/{userId}': Item<{
    delete: Op<never, never, { id: string; userId: string }, 204>;
  }>;
  '/api/invitations/{token}/accept': Item<{
    post: Op<never, { data: { organizationId: string; role: 'owner' | 'member' } }, { token: string }>;
  }>;
}
