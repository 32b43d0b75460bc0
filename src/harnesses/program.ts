// The program each harness runs, and how a user gets it: a spawn is refused up front when the program is not on the
// agent's PATH, instead of a pane that exits 127 on every restart.
import path from 'node:path';
import { findOnPath } from '../native/programs.js';
import { HARNESSES } from './index.js';
import type { Harness } from './types.js';

/**
 * What argv[0] is for a harness: its CLI by name, or the template's `command`, which for these harnesses names the
 * program to run in its place (a path to another build, a wrapper). A shell template's command is a whole shell
 * line, whose program cannot be told without running it: null.
 */
export function harnessProgram(harness: Harness, command: string | null): string | null {
  const program = HARNESSES[harness].program;
  return program ? (command ?? program.bin) : null;
}

/** The harnesses that run a CLI of their own (all but shell), in the table's order. */
export function cliHarnesses(): Harness[] {
  return (Object.keys(HARNESSES) as Harness[]).filter((h) => HARNESSES[h].program !== undefined);
}

export type ProgramCheck = { ok: true; path: string } | { ok: false; error: string };

/** Finds the harness's program as the agent's session will: on the PATH its environment sets, else the daemon's. */
export function checkHarnessProgram(harness: Harness, command: string | null, envPath: string): ProgramCheck | null {
  const program = harnessProgram(harness, command);
  if (program === null) return null;
  const found = program.includes('/')
    ? findOnPath(path.basename(program), path.dirname(program))
    : findOnPath(program, envPath);
  if (found) return { ok: true, path: found };
  const where = program.includes('/')
    ? `${program} is not an executable file`
    : `no "${program}" on the agent's PATH (${envPath || 'empty'})`;
  const fix =
    command !== null
      ? "fix the template's command"
      : `install it (${HARNESSES[harness].program!.install}) or set PATH in a named environment to where it is`;
  return { ok: false, error: `the ${harness} harness cannot start: ${where}; ${fix}` };
}
