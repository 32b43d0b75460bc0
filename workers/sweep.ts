/**
 * The activity sweep, run on a pool thread: one list-sessions for the whole fleet, then a capture-pane only for the
 * sessions whose activity advanced past the baseline the main thread sent (chained into as few tmux calls as fit),
 * each reduced to its last pane line. All the I/O lives here; the decisions stay in the (pure) activity tracker on the
 * main thread.
 */
import { realExec } from '../src/core/exec.js';
import { sessionsToCapture, type SweepInput, type SweepObservation } from '../src/observe/activity-tracker.js';
import { lastPaneLine } from '../src/observe/pane-line.js';
import { Tmux } from '../src/tmux/tmux.js';

export type SweepOutput = SweepObservation;

/** The sweep over any Tmux (tests hand it one over a recorded exec). */
export async function runSweep(
  tmux: Tmux,
  input: Pick<SweepInput, 'previous' | 'captureLines' | 'harnesses' | 'chrome'>,
): Promise<SweepOutput> {
  const sessions = await tmux.listSessions();
  const captured = await tmux.capturePanes(sessionsToCapture(sessions, input.previous), input.captureLines ?? 0);
  const panes: Record<string, string | null> = {};
  // A session missing from `captured` ended between the list and the capture; the tracker keeps its last line.
  for (const [name, text] of captured) {
    const harness = input.harnesses?.[name];
    panes[name] = lastPaneLine(text, harness && input.chrome?.[harness]);
  }
  return { sessions, panes };
}

export async function sweep(input: SweepInput): Promise<SweepOutput> {
  const tmux = new Tmux({
    socketPath: input.socketPath,
    exec: realExec,
    ...(input.tmuxBin ? { tmuxBin: input.tmuxBin } : {}),
  });
  return runSweep(tmux, input);
}
