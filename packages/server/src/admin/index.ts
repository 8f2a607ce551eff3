// The operator's verbs (npx berth admin …): the CLI calls these and never opens the store itself.
export { backup, type BackupResult } from './backup.js';
export { restore, type RestoreResult } from './restore.js';
export { BackupError } from './backup-file.js';
export { migrateStatus } from './migrations.js';
export { withStore, secretsOf, operatorDeps } from './context.js';
export {
  listDeploymentsForOperator,
  suspendDeployment,
  resumeDeployment,
  usageReport,
  listUsersForOperator,
} from './deployments.js';
export { createKey, listKeys, revokeKey, showAccount, resetLink, invite, placeDeployment } from './accounts.js';
