import type { Kysely } from 'kysely';
import type { Database } from './schema.js';

export interface User {
  id: string;
  email: string;
  webhookSecretEnc: string;
  createdAt: string;
}

export interface ApiKeyRow {
  id: string;
  userId: string;
  prefix: string;
  createdAt: string;
  revokedAt: string | null;
}

export class UserRepo {
  constructor(private readonly db: Kysely<Database>) {}

  async findByEmail(email: string): Promise<User | undefined> {
    const r = await this.db.selectFrom('users').selectAll().where('email', '=', email).executeTakeFirst();
    return r && { id: r.id, email: r.email, webhookSecretEnc: r.webhook_secret_enc, createdAt: r.created_at };
  }

  async findById(id: string): Promise<User | undefined> {
    const r = await this.db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
    return r && { id: r.id, email: r.email, webhookSecretEnc: r.webhook_secret_enc, createdAt: r.created_at };
  }

  /** Inserts unless the email exists (a concurrent create-key must not fail), then reads back. */
  async ensure(user: User): Promise<User> {
    await this.db
      .insertInto('users')
      .values({ id: user.id, email: user.email, webhook_secret_enc: user.webhookSecretEnc, created_at: user.createdAt })
      .onConflict((oc) => oc.column('email').doNothing())
      .execute();
    return (await this.findByEmail(user.email))!;
  }

  async insertKey(k: ApiKeyRow & { hash: string }): Promise<void> {
    await this.db
      .insertInto('api_keys')
      .values({
        id: k.id,
        user_id: k.userId,
        prefix: k.prefix,
        hash: k.hash,
        created_at: k.createdAt,
        revoked_at: null,
      })
      .execute();
  }

  /** One indexed lookup: the key's hash is unique. */
  async findActiveKeyOwner(hash: string): Promise<{ keyId: string; userId: string } | undefined> {
    const r = await this.db
      .selectFrom('api_keys')
      .select(['id', 'user_id'])
      .where('hash', '=', hash)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    return r && { keyId: r.id, userId: r.user_id };
  }

  async listKeys(userId: string): Promise<ApiKeyRow[]> {
    const rows = await this.db
      .selectFrom('api_keys')
      .selectAll()
      .where('user_id', '=', userId)
      .orderBy('created_at', 'asc')
      .execute();
    return rows.map((r) => ({
      id: r.id,
      userId: r.user_id,
      prefix: r.prefix,
      createdAt: r.created_at,
      revokedAt: r.revoked_at,
    }));
  }

  async revokeKey(userId: string, idOrPrefix: string, at: string): Promise<number> {
    const res = await this.db
      .updateTable('api_keys')
      .set({ revoked_at: at })
      .where('user_id', '=', userId)
      .where('revoked_at', 'is', null)
      .where((eb) => eb.or([eb('id', '=', idOrPrefix), eb('prefix', '=', idOrPrefix)]))
      .executeTakeFirst();
    return Number(res.numUpdatedRows);
  }
}
