#!/usr/bin/env node
// `npm start`: the built control plane (`npm ci` builds it through `prepare`; `npm run build` rebuilds),
// bundled when the build made a bundle that is not older than the compiled code (scripts/bundle-server.mjs).
import { freshBundle, startBuilt } from './start-built.js';

const main = new URL('../dist/main.js', import.meta.url);
await startBuilt(
  freshBundle(new URL('../dist/bundle/main.js', import.meta.url), [
    new URL('../dist/.tsbuildinfo', import.meta.url),
    new URL('../../contracts/dist/.tsbuildinfo', import.meta.url),
  ]) ?? main,
);
