#!/usr/bin/env node
// npm run bench: every benchmark, one after another (never two at once: they would measure each
// other), each printing its own table; the figures are gathered into bench-results.json.
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';

const BENCHES = [
  'api',
  'proxy',
  'streams',
  'density',
  'html',
  'gateway',
  'fairness',
  'activate',
  // Round 3.
  'telegram',
  'settings',
  'media',
  'reminders',
  'metrics',
  'cold-start',
  'scale',
  'backup',
  // Round 4.
  'search',
  'mcp',
  'ingress',
];
const pkg = JSON.parse((await import('node:fs')).readFileSync('package.json', 'utf8'));
const only = process.argv.slice(2);
const results = [];
for (const name of BENCHES.filter((b) => !only.length || only.includes(b))) {
  if (!pkg.scripts[`bench:${name}`]) continue;
  console.log(`\n== bench:${name}`);
  const res = spawnSync('npm', ['run', '--silent', `bench:${name}`], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  for (const line of res.stdout.split('\n')) {
    if (line.startsWith('BENCH_RESULT ')) results.push(JSON.parse(line.slice('BENCH_RESULT '.length)));
    else process.stdout.write(`${line}\n`);
  }
  if (res.status !== 0) results.push({ name, error: `exited with ${res.status}` });
}
const out = {
  date: new Date().toISOString(),
  node: process.version,
  cores: (await import('node:os')).availableParallelism(),
  results,
};
writeFileSync('bench-results.json', `${JSON.stringify(out, null, 2)}\n`);
console.log('\nfigures written to bench-results.json');
