#!/usr/bin/env node
// The leo command: runs the compiled CLI. `npm run build` (or `npm start` / `npm test`) compiles it first.
import { existsSync } from 'node:fs';

const entry = new URL('../dist/src/cli/main.js', import.meta.url);
if (!existsSync(entry)) {
  console.error('leo: not built yet — run `npm run build` (npm start and npm test build it for you)');
  process.exit(1);
}
// `leo hook <event>` runs at the start and end of every turn of every agent, and the turn's reply waits for its Stop:
// it goes straight to its module, without commander and the command table (measured: 0.28 → 0.11 s of CPU a hook).
const [command, event, ...rest] = process.argv.slice(2);
if (command === 'hook' && event && !event.startsWith('-') && rest.length === 0) {
  const { runHookCommand } = await import(new URL('../dist/src/cli/hook-command.js', import.meta.url).href);
  await runHookCommand(event);
} else await import(entry.href);
