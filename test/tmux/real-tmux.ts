import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { realExec } from '../../src/core/exec.js';
import { Tmux } from '../../src/tmux/tmux.js';

/**
 * A real tmux server on a private socket in a temp folder, driven by a tmux process per call or (`control`) over one
 * control-mode client; `cleanup` kills it and removes the folder.
 */
export function privateTmux(control = false): {
  tmux: Tmux;
  socketPath: string;
  dir: string;
  cleanup(): Promise<void>;
} {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'leo-tmux-'));
  const socketPath = path.join(dir, 'tmux.sock');
  const tmux = new Tmux({ socketPath, exec: realExec, control });
  return {
    tmux,
    socketPath,
    dir,
    async cleanup() {
      await tmux.killServer();
      tmux.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Polls `probe` until it returns a value other than undefined, or fails after `timeoutMs`. */
export async function eventually<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 5000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

/** A shell loop that prints a coloured, numbered line every 0.2 s, with a window title set by OSC. */
export const PRINTING_LOOP = [
  'sh',
  '-c',
  'i=0; printf "\\033]0;a title\\007"; while :; do i=$((i+1)); printf "\\033[1;32mtick\\033[0m %s\\t\\033[Kdone\\n" "$i"; sleep 0.2; done',
];
