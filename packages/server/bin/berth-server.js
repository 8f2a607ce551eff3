#!/usr/bin/env node
// `npm start`: the built control plane (`npm ci` builds it through `prepare`; `npm run build` rebuilds),
// bundled when the build made a bundle that is not older than the compiled code (scripts/bundle-server.mjs).
import { freshBundle, startBuilt } from './start-built.js';

const main = new URL('../dist/main.js', import.meta.url);
// The bundle is CommonJS and require()s music-metadata, an ES module: a Node that cannot (22.0 to
// 22.11 without a flag) runs the compiled code instead. (The Kubernetes client is bundled, as
// CommonJS, into a file of its own: scripts/bundle-server.mjs.)
const bundle = process.features.require_module
  ? freshBundle(new URL('../dist/bundle/main.cjs', import.meta.url), [
      new URL('../dist/.tsbuildinfo', import.meta.url),
      new URL('../../contracts/dist/.tsbuildinfo', import.meta.url),
    ])
  : undefined;
await startBuilt(bundle ?? main);
