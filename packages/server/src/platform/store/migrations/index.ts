// Versioned migrations, applied in name order at start-up. Add a file, never edit a landed one.
import type { Migration, MigrationProvider } from 'kysely';
import * as m0001 from './0001-initial.js';
import * as m0002 from './0002-jobs.js';
import * as m0003 from './0003-payments.js';
import * as m0004 from './0004-provider-ids.js';
import * as m0005 from './0005-leases.js';
import * as m0006 from './0006-usage.js';
import * as m0007 from './0007-worker-placements.js';
import * as m0008 from './0008-limits.js';
import * as m0009 from './0009-callback-sequences.js';
import * as m0010 from './0010-placement-choices.js';
import * as m0011 from './0011-tombstones.js';
import * as m0012 from './0012-desired-observed.js';
import * as m0013 from './0013-accounts.js';
import * as m0014 from './0014-invitation-inviter.js';
import * as m0015 from './0015-settings.js';
import * as m0016 from './0016-organization-webhook-secrets.js';
import * as m0017 from './0017-operations.js';
import * as m0018 from './0018-reconcile-pages.js';
import * as m0022 from './0022-password-resets.js';
import * as m0027 from './0027-usage-journal-marks.js';

const migrations: Record<string, Migration> = {
  '0001-initial': m0001,
  '0002-jobs': m0002,
  '0003-payments': m0003,
  '0004-provider-ids': m0004,
  '0005-leases': m0005,
  '0006-usage': m0006,
  '0007-worker-placements': m0007,
  '0008-limits': m0008,
  '0009-callback-sequences': m0009,
  '0010-placement-choices': m0010,
  '0011-tombstones': m0011,
  '0012-desired-observed': m0012,
  '0013-accounts': m0013,
  '0014-invitation-inviter': m0014,
  '0015-settings': m0015,
  '0016-organization-webhook-secrets': m0016,
  '0017-operations': m0017,
  '0018-reconcile-pages': m0018,
  '0022-password-resets': m0022,
  '0027-usage-journal-marks': m0027,
};

export const migrationProvider: MigrationProvider = {
  async getMigrations() {
    return migrations;
  },
};
