import type { Command } from 'commander';
import { setTimeout as sleep } from 'node:timers/promises';
import type { MoveOperation } from '../wire/move.js';
import { act } from './command-action.js';
import { progressLine, settled } from './move-progress.js';
import { callDaemon } from './socket-client.js';

/** How often the operation is read while it runs. */
const POLL_MS = 500;

/**
 * `leo agent move` and `leo agent copy` (issue 32), on a hub: start the operation, then print its progress until it
 * is settled; exit code 0 when it is done, 1 when it failed (after its undo, so the source runs again).
 */
export function registerMoveCommands(agent: Command): void {
  const start = (kind: MoveOperation['kind'], name: string, body: object) =>
    callDaemon<MoveOperation>('POST', `/api/v1/agents/${encodeURIComponent(name)}/${kind}`, body);

  agent
    .command('move [agent]')
    .description('move an agent (name or name@host) to another machine this hub follows, with its conversation')
    .option('--to <host>', 'the machine to move it to (its name in `leo host list`)')
    .option('--force', 'move it even in the middle of a turn')
    .option('--as <name>', 'its name there')
    .option('--retry <id>', 'retry a failed move or copy by its id')
    .action(
      act(async (name: string | undefined, o: { to?: string; force?: boolean; as?: string; retry?: string }) => {
        if (o.retry) return follow(await callDaemon('POST', `/api/v1/moves/${encodeURIComponent(o.retry)}/retry`));
        if (!name || !o.to) throw new Error('name the agent and --to <host> (or --retry <id>)');
        return follow(
          await start('move', name, { to: o.to, ...(o.force ? { force: true } : {}), ...(o.as ? { as: o.as } : {}) }),
        );
      }),
    );

  agent
    .command('copy <agent>')
    .description('copy an agent to another machine: a second agent with its conversation, the source left running')
    .requiredOption('--to <host>', 'the machine to copy it to (its name in `leo host list`)')
    .option('--as <name>', 'the copy’s name there')
    .action(
      act(async (name: string, o: { to: string; as?: string }) =>
        follow(await start('copy', name, { to: o.to, ...(o.as ? { as: o.as } : {}) })),
      ),
    );
}

/** Prints each new progress line until the operation settles; a failure sets exit code 1 and says how to retry. */
async function follow(started: MoveOperation): Promise<undefined> {
  console.log(`${started.kind} ${started.id}`);
  let op = started;
  let last = '';
  for (;;) {
    const line = progressLine(op);
    if (line !== last) console.log(line);
    last = line;
    if (settled(op)) break;
    await sleep(POLL_MS);
    op = await callDaemon<MoveOperation>('GET', `/api/v1/moves/${encodeURIComponent(op.id)}`);
  }
  if (op.step === 'failed') {
    console.log(`retry it with: leo agent move --retry ${op.id}`);
    process.exitCode = 1;
  }
  return undefined;
}
