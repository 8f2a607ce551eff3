// `--import`ed by each test file's process (scripts/run-tests.mjs), after tsx: see hooks.mjs.
// Where Node has in-thread hooks (22.15+, 24), they are used: tsx uses them there too, and one hook
// registered off-thread would start a hooks thread that every module resolution then crosses
// (~0.5 s of a process's start on Node 24). Node 20 has only the off-thread kind.
import module from 'node:module';
import { resolveSync } from './hooks.mjs';

if (typeof module.registerHooks === 'function') module.registerHooks({ resolve: resolveSync });
else module.register('./hooks.mjs', import.meta.url);
