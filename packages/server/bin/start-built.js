// Imports a built entry point, or tells the person how to build it when dist/ is missing.
import { existsSync } from 'node:fs';

/** @param {URL} entry */
export async function startBuilt(entry) {
  if (!existsSync(entry)) {
    console.error(`berth: ${entry.pathname} is missing; build first with "npm run build" (npm ci does it).`);
    process.exit(1);
  }
  process.setSourceMapsEnabled(true); // stack traces point at the TypeScript source
  await import(entry.href);
}
