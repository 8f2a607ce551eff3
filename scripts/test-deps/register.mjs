// `--import`ed by each test file's process (scripts/run-tests.mjs), after tsx: see hooks.mjs.
import { register } from 'node:module';

register('./hooks.mjs', import.meta.url);
