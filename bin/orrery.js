#!/usr/bin/env node
// Launcher: runs the TypeScript CLI through tsx so `npx orrery …` works from a checkout.
import { register } from 'tsx/esm/api';
register();
await import('./orrery.ts');
