// Versioned migrations, applied in name order at start-up. The names are what each database
// records in berth_migrations: never rename one. Rounds 1 and 2 are frozen in rounds-1-2.ts; a
// new change to the schema is a new file (`00NN-what.ts` exporting `up` and `down`) added here.
// On SQLite the pending migrations run in one transaction: no statement SQLite ignores or refuses
// inside one (house-rules.test names them). A fresh store made from the bundle's schema gets DDL only, so a
// migration does not write rows either (the build refuses, database.ts freshSqliteSchema).
import type { Migration, MigrationProvider } from 'kysely';
import { roundsOneAndTwo } from './rounds-1-2.js';
import * as pendingSlots from './0028-pending-slots-index.js';
import * as unhashedBotTokens from './0029-unhashed-bot-tokens-index.js';
import * as storedResponses from './0030-stored-responses.js';
import * as usageEndUser from './0031-usage-end-user.js';
import * as mcpServers from './0032-mcp-servers.js';
import * as channels from './0033-channels.js';

const migrations: Record<string, Migration> = {
  ...roundsOneAndTwo,
  '0028-pending-slots-index': pendingSlots,
  '0029-unhashed-bot-tokens-index': unhashedBotTokens,
  '0030-stored-responses': storedResponses,
  '0031-usage-end-user': usageEndUser,
  '0032-mcp-servers': mcpServers,
  '0033-channels': channels,
};

export const migrationProvider: MigrationProvider = {
  async getMigrations() {
    return migrations;
  },
};
