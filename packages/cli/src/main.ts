// berth: the operator's command line. Status lines go to stderr; results to stdout, so scripts
// can take the last line of stdout (the key of create-key).
import { parseArgs } from 'node:util';
import { adminCommand } from './commands/admin.js';

const USAGE = `Usage:
  berth admin create-key --email <email>     create the user if needed and print a new API key
  berth admin list-keys --email <email>      list a user's keys (prefixes only)
  berth admin revoke-key --email <email> --key <id or prefix>
  berth admin show-user --email <email>      show a user and their callback signing secret

Reads the same environment as the server (DATA_DIR, DATABASE_URL, SECRETS_KEY).`;

async function main(argv: string[]) {
  const [group, command, ...rest] = argv;
  if (group !== 'admin' || !command || command === '--help' || command === '-h') {
    console.error(USAGE);
    return group === '--help' || group === '-h' || command === '--help' ? 0 : 2;
  }
  const { values } = parseArgs({ args: rest, options: { email: { type: 'string' }, key: { type: 'string' } }, strict: true });
  return adminCommand(command, values);
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err) => {
    console.error(`berth: ${(err as Error).message}`);
    process.exit(1);
  },
);
