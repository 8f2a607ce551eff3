#!/usr/bin/env node
// Runs the TypeScript CLI through tsx so `npx berth` works straight after `npm ci`.
import { register } from 'tsx/esm/api';

register();
await import('../src/main.ts');
