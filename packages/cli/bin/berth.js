#!/usr/bin/env node
// Runs the built CLI (`npm ci` builds it through `prepare`; `npm run build` rebuilds).
import { startBuilt } from '@berth/server/start-built';

await startBuilt(new URL('../dist/main.js', import.meta.url));
