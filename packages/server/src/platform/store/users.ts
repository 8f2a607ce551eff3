import type { Kysely } from 'kysely';
import type { Database } from './schema.js';
import { markOnce } from './matching.js';

export interface User {
  id: string;
  email: string;
  webhookSecretEnc: string;
  createdAt: string;
}

export interface ApiKeyRow {
  id: string;
  /** Who created the key; for a personal key, also whom it acts for. */
  userId: string;
  /** Set: the key acts for this organization. */
  organizationId: string | null;
  name: string;
  prefix: string;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

/** Whom an active key acts for (accounts/authenticate.ts). */
export interface KeyHolder {
  keyId: string;
  userId: string;
  organizationId: string | null;
  lastUsedAt: string | null;
}

type KeyColumns = {
  id: string;
  user_id: string;
  organization_id: string | null;
  name: string;
  prefix: string;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
};

/** A key to store: unnamed and personal unless said otherwise. */
type NewKey = Omit<ApiKeyRow, 'lastUsedAt' | 'name' | 'organizationId'> & {
  hash: string;
  name?: string;
  organizationId?: string | null;
};

/** A new key's row: never used, not revoked. */
const newKeyColumns = (k: NewKey) => ({
  id: k.id,
  user_id: k.userId,
  organization_id: k.organizationId ?? null,
  name: k.name ?? '',
  prefix: k.prefix,
  hash: k.hash,
  created_at: k.createdAt,
  revoked_at: null,
  last_used_at: null,
});

const toKey = (r: KeyColumns): ApiKeyRow => ({
  id: r.id,
  userId: r.user_id,
  organizationId: r.organization_id,
  name: r.name,
  prefix: r.prefix,
  createdAt: r.created_at,
  lastUsedAt: r.last_used_at,
  revokedAt: r.revoked_at,
});

const KEY_COLUMNS = [
  'id',
  'user_id',
  'organization_id',
  'name',
  'prefix',
  'created_at',
  'last_used_at',
  'revoked_at',
] as const;

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

  /** Inserts a user with a password; false when the email is taken (a concurrent sign-up won). */
  async insertWithPassword(user: User, passwordHash: string): Promise<boolean> {
    const res = await this.db
      .insertInto('users')
      .values({
        id: user.id,
        email: user.email,
        webhook_secret_enc: user.webhookSecretEnc,
        created_at: user.createdAt,
        password_hash: passwordHash,
      })
      .onConflict((oc) => oc.column('email').doNothing())
      .executeTakeFirst();
    return Number(res.numInsertedOrUpdatedRows ?? 0) > 0;
  }

  async passwordHash(userId: string): Promise<string | null> {
    const r = await this.db.selectFrom('users').select('password_hash').where('id', '=', userId).executeTakeFirst();
    return r?.password_hash ?? null;
  }

  /** The user and its password hash, for sign-in. */
  async findCredentials(email: string): Promise<(User & { passwordHash: string | null }) | undefined> {
    const r = await this.db.selectFrom('users').selectAll().where('email', '=', email).executeTakeFirst();
    return (
      r && {
        id: r.id,
        email: r.email,
        webhookSecretEnc: r.webhook_secret_enc,
        createdAt: r.created_at,
        passwordHash: r.password_hash,
      }
    );
  }

  /** Sets a password; with `onlyIfUnset`, only for a user who has none yet (returns whether it did). */
  async setPassword(userId: string, passwordHash: string, onlyIfUnset = false): Promise<boolean> {
    let q = this.db.updateTable('users').set({ password_hash: passwordHash }).where('id', '=', userId);
    if (onlyIfUnset) q = q.where('password_hash', 'is', null);
    return Number((await q.executeTakeFirst()).numUpdatedRows) > 0;
  }

  /**
   * Inserts the key only while its user holds fewer than `max` live keys (personal and for
   * organizations alike). The user's row is locked first (a no-op UPDATE: a row lock on PostgreSQL,
   * the write lock on SQLite), so concurrent creations count one after another.
   */
  async insertKeyCapped(k: NewKey & { name: string; organizationId: string | null }, max: number): Promise<boolean> {
    return this.db.transaction().execute(async (tx) => {
      await tx.updateTable('users').set({ id: k.userId }).where('id', '=', k.userId).execute();
      const row = await tx
        .selectFrom('api_keys')
        .select((eb) => eb.fn.countAll<number | string>().as('n'))
        .where('user_id', '=', k.userId)
        .where('revoked_at', 'is', null)
        .executeTakeFirstOrThrow();
      if (Number(row.n) >= max) return false;
      await tx.insertInto('api_keys').values(newKeyColumns(k)).execute();
      return true;
    });
  }

  async insertKey(k: NewKey): Promise<void> {
    await this.db.insertInto('api_keys').values(newKeyColumns(k)).execute();
  }

  /** One indexed lookup: the key's hash is unique. */
  async findActiveKeyOwner(hash: string): Promise<KeyHolder | undefined> {
    const r = await this.db
      .selectFrom('api_keys')
      .select(['id', 'user_id', 'organization_id', 'last_used_at'])
      .where('hash', '=', hash)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    return r && { keyId: r.id, userId: r.user_id, organizationId: r.organization_id, lastUsedAt: r.last_used_at };
  }

  /** Records use unless it was recorded after `staleBefore` (so replicas write at most once a while). */
  async touchKey(keyId: string, at: string, staleBefore: string): Promise<void> {
    await this.db
      .updateTable('api_keys')
      .set({ last_used_at: at })
      .where('id', '=', keyId)
      .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<', staleBefore)]))
      .execute();
  }

  /**
   * The user's personal keys (userId null: none) and every key of `organizationIds`. Without
   * arguments beyond the user, every key the user created (the operator's `admin list-keys`).
   */
  async listKeys(userId: string | null, organizationIds?: string[]): Promise<ApiKeyRow[]> {
    const rows = await this.db
      .selectFrom('api_keys')
      .select(KEY_COLUMNS)
      .where((eb) => {
        if (organizationIds === undefined) return eb('user_id', '=', userId ?? '');
        const personal =
          userId === null ? [] : [eb.and([eb('user_id', '=', userId), eb('organization_id', 'is', null)])];
        const shared = organizationIds.length ? [eb('organization_id', 'in', organizationIds)] : [];
        return eb.or([...personal, ...shared, eb.lit(false)]);
      })
      .orderBy('created_at', 'asc')
      .orderBy('id', 'asc')
      .execute();
    return rows.map(toKey);
  }

  async findKey(id: string): Promise<(ApiKeyRow & { hash: string }) | undefined> {
    const r = await this.db
      .selectFrom('api_keys')
      .select([...KEY_COLUMNS, 'hash'])
      .where('id', '=', id)
      .executeTakeFirst();
    return r && { ...toKey(r), hash: r.hash };
  }

  /** Revokes one key by id; the hash comes back so the caller can drop it from the key cache. */
  async revokeKeyById(id: string, at: string): Promise<boolean> {
    return (await markOnce(this.db, 'api_keys', { id }, 'revoked_at', at)) > 0;
  }

  /** Revokes the keys a user made for an organization (they leave it); returns their hashes. */
  /** Revokes every live key the user made, personal and for organizations; their hashes, to drop from caches. */
  async revokeAllKeysOf(userId: string, at: string): Promise<string[]> {
    return this.db.transaction().execute(async (tx) => {
      const rows = await tx
        .selectFrom('api_keys')
        .select('hash')
        .where('user_id', '=', userId)
        .where('revoked_at', 'is', null)
        .execute();
      await tx
        .updateTable('api_keys')
        .set({ revoked_at: at })
        .where('user_id', '=', userId)
        .where('revoked_at', 'is', null)
        .execute();
      return rows.map((r) => r.hash);
    });
  }

  async revokeOrganizationKeysOf(userId: string, organizationId: string, at: string): Promise<string[]> {
    const rows = await this.db
      .selectFrom('api_keys')
      .select('hash')
      .where('user_id', '=', userId)
      .where('organization_id', '=', organizationId)
      .where('revoked_at', 'is', null)
      .execute();
    await this.db
      .updateTable('api_keys')
      .set({ revoked_at: at })
      .where('user_id', '=', userId)
      .where('organization_id', '=', organizationId)
      .where('revoked_at', 'is', null)
      .execute();
    return rows.map((r) => r.hash);
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
