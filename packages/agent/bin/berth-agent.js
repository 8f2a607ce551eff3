#!/usr/bin/env node
// Runs the built agent runtime (`npm ci` builds it through `prepare`; `npm run build` rebuilds).
process.setSourceMapsEnabled(true);
await import('../dist/main.js');
