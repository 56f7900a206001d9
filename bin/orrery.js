#!/usr/bin/env node
// Launcher: runs the TypeScript CLI through tsx so `npx orrery …` works from a checkout.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { register } from 'tsx/esm/api';

// NOTE: a simulated cluster allocates short-lived objects at a high rate; with a 128 MiB young
// generation instead of V8's 16 MiB it spends far less time in scavenges (see bench/README.md).
// V8 sizes its heap when the process starts, so `simulate` runs itself again once with the flag,
// unless the user chose a size (in the node flags or NODE_OPTIONS).
const SEMI_SPACE = '--max-semi-space-size';
const chosen = process.execArgv.some((a) => a.startsWith(SEMI_SPACE)) || (process.env.NODE_OPTIONS ?? '').includes(SEMI_SPACE);
if (process.argv[2] === 'simulate' && !chosen) {
  const r = spawnSync(process.execPath, [`${SEMI_SPACE}=128`, ...process.execArgv, fileURLToPath(import.meta.url), ...process.argv.slice(2)], { stdio: 'inherit' });
  if (r.error) throw r.error;
  if (r.signal) process.kill(process.pid, r.signal);
  process.exit(r.status ?? 1);
}
register();
await import('./orrery.ts');
