import { endProcessGroup } from '../../core/process-group.js';
import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import path from 'node:path';
import { defineTool, ToolError } from './tool.js';
import { isInside } from '../../core/path-inside.js';

const DEFAULT_TIMEOUT_S = 120;
const MAX_TIMEOUT_S = 600;
/** The end of the output is what explains a failure; the model gets this much of it. */
const TAIL_CHARS = 20_000;
/** After SIGTERM, how long the group gets before SIGKILL. */
const KILL_GRACE_MS = 3000;
/** How long output pipes may stay open after the group is gone (held by something that left it with setsid). */
const PIPE_DRAIN_MS = 500;
/** What a command inherits from the daemon's own environment: what a shell needs to work, nothing Leo holds. */
const INHERITED = new Set(['PATH', 'HOME', 'USER', 'LOGNAME', 'SHELL', 'LANG', 'LANGUAGE', 'TERM', 'TZ', 'TMPDIR']);

/**
 * The command's environment: the daemon's basics (PATH, HOME, locale), never the rest of the daemon's environment —
 * Leo's LEO_* variables and whatever the owner's login shell left there — and the agent's own environments, as its
 * terminal gets them. Not a sandbox: the command runs as the owner and can read whatever the owner can, Leo's state
 * folder included, by path; this only keeps secrets from being handed to it unasked.
 */
export function bashEnv(daemonEnv: NodeJS.ProcessEnv, agentEnv: Record<string, string>, cwd: string) {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(daemonEnv))
    if (v !== undefined && (INHERITED.has(k) || k.startsWith('LC_'))) env[k] = v;
  return { ...env, ...agentEnv, PWD: cwd };
}

export const bash = defineTool({
  name: 'bash',
  description:
    'Run a shell command with /bin/sh -c in the workspace. Output streams live; the result is the end of the combined ' +
    'stdout and stderr and the exit code. The command and everything it started are killed when it exits, times out ' +
    'or the turn is cancelled, so nothing keeps running in the background.',
  params: z.object({
    command: z.string().min(1),
    timeout_s: z
      .number()
      .positive()
      .max(MAX_TIMEOUT_S)
      .optional()
      .describe(`Seconds before the command is killed; default ${DEFAULT_TIMEOUT_S}`),
  }),
  async run({ command, timeout_s = DEFAULT_TIMEOUT_S }, ctx) {
    const cwd = await fs.realpath(ctx.workspace);
    const denied = await Promise.all(ctx.deniedRoots.map((d) => fs.realpath(d).catch(() => path.resolve(d))));
    if (denied.some((d) => isInside(d, cwd)))
      throw new ToolError("access denied: the workspace is inside Leo's state folder; bash does not run there");
    const child = spawn('/bin/sh', ['-c', command], {
      cwd,
      env: bashEnv(process.env, ctx.env, cwd),
      stdio: ['ignore', 'pipe', 'pipe'],
      // Its own process group, so the whole tree can be signalled at once.
      detached: true,
    });
    let output = '';
    let cutChars = 0;
    for (const stream of [child.stdout, child.stderr]) {
      // utf8 decoding here keeps a character split across two reads whole.
      stream.setEncoding('utf8');
      stream.on('data', (text: string) => {
        ctx.output(text);
        output += text;
        if (output.length > TAIL_CHARS) {
          cutChars += output.length - TAIL_CHARS;
          output = output.slice(-TAIL_CHARS);
        }
      });
    }
    const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve, reject) => {
      child.once('exit', (code, signal) => resolve({ code, signal }));
      child.once('error', reject);
    });

    let stoppedBy: 'timeout' | 'cancel' | null = null;
    let ending: Promise<void> | undefined;
    const endTree = () =>
      (ending ??= child.pid === undefined ? Promise.resolve() : endProcessGroup(child.pid, KILL_GRACE_MS));
    const stop = (why: 'timeout' | 'cancel') => {
      stoppedBy ??= why;
      void endTree();
    };
    const timer = setTimeout(() => stop('timeout'), timeout_s * 1000);
    const onAbort = () => stop('cancel');
    ctx.signal.addEventListener('abort', onAbort, { once: true });
    if (ctx.signal.aborted) onAbort();
    try {
      const end = await exited.catch((err: Error) => {
        throw new ToolError(`could not run /bin/sh: ${err.message}`);
      });
      // Also after a normal exit: whatever the command left running in its group goes with it.
      await endTree();
      await Promise.race([closed, sleep(PIPE_DRAIN_MS, undefined, { ref: false })]);
      child.stdout.destroy();
      child.stderr.destroy();

      const head = cutChars ? `[… ${cutChars} earlier characters cut]\n` : '';
      const body = output || '(no output)\n';
      const text = `${head}${body}${body.endsWith('\n') ? '' : '\n'}${statusLine(stoppedBy, end, timeout_s)}`;
      return { content: text, success: stoppedBy === null && end.code === 0 };
    } finally {
      clearTimeout(timer);
      ctx.signal.removeEventListener('abort', onAbort);
    }
  },
});

function statusLine(
  stoppedBy: 'timeout' | 'cancel' | null,
  end: { code: number | null; signal: NodeJS.Signals | null },
  timeoutS: number,
): string {
  if (stoppedBy === 'timeout') return `[timed out after ${timeoutS}s; killed]`;
  if (stoppedBy === 'cancel') return '[cancelled; killed]';
  return end.code !== null ? `[exit code ${end.code}]` : `[killed by ${end.signal}]`;
}
