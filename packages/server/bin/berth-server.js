#!/usr/bin/env node
// `npm start`: the built control plane (`npm ci` builds it through `prepare`; `npm run build` rebuilds).
import { startBuilt } from './start-built.js';

await startBuilt(new URL('../dist/main.js', import.meta.url));
