// Every secret sealed at rest, for proving that a restored key opens them (admin restore).
import type { Kysely } from 'kysely';
import type { Database } from './schema.js';

export async function sealedSecrets(db: Kysely<Database>): Promise<string[]> {
  const users = await db.selectFrom('users').select('webhook_secret_enc').execute();
  const deps = await db
    .selectFrom('deployments')
    .select(['bot_token_enc', 'model_api_key_enc', 'gateway_token_enc'])
    .execute();
  const out = users.map((u) => u.webhook_secret_enc);
  const mcp = await db.selectFrom('mcp_servers').select('headers_enc').where('headers_enc', 'is not', null).execute();
  for (const m of mcp) if (m.headers_enc) out.push(m.headers_enc);
  for (const d of deps) for (const v of [d.bot_token_enc, d.model_api_key_enc, d.gateway_token_enc]) if (v) out.push(v);
  for (const c of await db.selectFrom('assistant_channels').select('secrets_enc').execute()) out.push(c.secrets_enc);
  return out;
}
