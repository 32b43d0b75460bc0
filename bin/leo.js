#!/usr/bin/env node
// The leo command: runs the compiled CLI. `npm run build` (or `npm start` / `npm test`) compiles it first.
import { existsSync } from 'node:fs';

const entry = new URL('../dist/src/cli/main.js', import.meta.url);
if (!existsSync(entry)) {
  console.error('leo: not built yet — run `npm run build` (npm start and npm test build it for you)');
  process.exit(1);
}
await import(entry.href);
