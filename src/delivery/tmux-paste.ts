import { setTimeout as sleep } from 'node:timers/promises';
import { sessionName } from '../tmux/session-name.js';
import type { NeedsInputHold } from '../wire/fleet.js';
import type { DeliveryRoute } from './deliverer.js';
import type { Screen, ScreenReader } from '../harnesses/screen.js';
import { HoldNotes, waitForInput, waitWhilePromptOpen, type InputWait } from './input-wait.js';
import { inertText } from '../tmux/inert-text.js';
import { pressKeys } from './dialog-answers.js';
import { StepTimes } from './step-times.js';

export interface PasteTarget {
  pasteText(session: string, text: string, opts?: { bracketed?: boolean }): Promise<void>;
  sendEnter(session: string): Promise<void>;
  sendKeys(session: string, keys: readonly string[]): Promise<void>;
  /** The line the pane's cursor is on; with `thenEnter`, Enter is pressed in the same tmux call. */
  cursorLine(session: string, opts?: { thenEnter?: boolean }): Promise<string>;
  capturePane(session: string, lines?: number): Promise<string>;
}

/**
 * Time for the harness to take a bracketed paste in before Enter submits it (prior-art: 100-300 ms): the longest a
 * delivery waits for the text to show in the box (a screen reader) or on the cursor's line (an echoing program), and
 * how long it waits when it cannot tell.
 */
export const PASTE_SETTLE_MS = 250;
/** After Enter, how long to wait for the screen to show that the prompt was taken, and how often to press again. */
export const ENTER_CHECK_MS = 300;
/**
 * When the pane is looked at after a paste or an Enter, in ms since it: an idle TUI shows either within a frame or
 * two, and a look is one tmux call, so soon and then less often, up to the settle or ENTER_CHECK_MS.
 */
const PASTE_LOOKS_MS = [15, 30, 60, 100, 150, 200];
const ENTER_LOOKS_MS = [20, 40, 80, 150, 220];
/** For a program whose screen cannot be read: one look for its echo, which an idle one shows at once. */
const ECHO_LOOK_MS = 40;
export const ENTER_ATTEMPTS = 3;
/** How long one Enter gets to empty the input box of a harness whose screen is read, before it is pressed again. */
export const SUBMIT_WAIT_MS = 1_500;
/**
 * How long after the first Enter the box may keep the text before the message counts as not submitted. opencode holds
 * it until it has created its session, which took up to 7 s after the Enter at a load of 19 on 2 cores; it ignores
 * the presses that come meanwhile.
 */
export const SUBMIT_TIMEOUT_MS = 15_000;
/** How much of the end of a message's last line must show on the cursor's line to count as still sitting there. */
const TYPED_TAIL_CHARS = 12;

/**
 * Types a message into an agent's pane as one bracketed paste followed by Enter, so a multi-line text arrives as one
 * prompt in any harness. Pastes into one pane are serialized by the caller (one delivery queue per agent). The waits
 * are real time, not the Clock seam: they pace a terminal, they are not deadlines.
 *
 * The paste is made inert (Tmux.pasteText), so the text cannot act as keys; the Enter after it is the one key Leo
 * presses, and it is pressed only where it submits the text: never while a permission prompt or questions card is open
 * in the agent's thread (its terminal shows that dialog, which Enter would answer), and with a screen reader only
 * while the input box shows the text. A message held by either waits, pending, and goes in once it is gone.
 *
 * With a screen reader (a harness whose screen Leo knows), nothing is typed until the input box is up and empty — a
 * dialog would take the keystrokes as its answer — and the message counts as submitted only once the box is empty
 * again after Enter (and the start screen it was typed on, if a submit replaces that screen, has gone): a text left
 * sitting in the box was not sent. Without one (a shell template's program), the
 * cursor's line is watched instead (pasteAndWatchPane).
 */
export async function pasteAndSubmit(
  tmux: PasteTarget,
  session: string,
  text: string,
  screen?: { read?: ScreenReader; wait: InputWait; submitTimeoutMs?: number },
  times = new StepTimes(),
): Promise<void> {
  if (!screen?.read) return pasteAndWatchPane(tmux, session, text, screen?.wait, times);
  const { read, wait } = screen;
  const look = async (): Promise<Screen> => read(await tmux.capturePane(session, 0));
  await waitForInput(look, wait);
  times.lap('ready');
  await tmux.pasteText(session, text, { bracketed: true });
  times.lap('paste');
  // The box holding the text is what makes Enter safe: pressed as soon as it shows, not after a fixed settle.
  const early = await lookUntil(PASTE_LOOKS_MS, look, (s) => holdsText(s) && !wait.openPrompt());
  times.lap('settle');
  const shown = early ?? (await waitForInput(look, wait, { typed: true }));
  times.lap('shown');
  await tmux.sendEnter(session);
  times.lap('enter');
  const firstPress = Date.now();
  // Before ENTER_CHECK_MS only an emptied box drawn in full counts: a look caught mid-redraw reads as no box at all.
  // A submit that replaced a start screen (opencode creating its session) keeps the old pace: its new view is freshly
  // drawn, and a next message typed into it at once was left queued behind a first turn that stalled under load.
  const fresh = shown.kind === 'input' && shown.replacedOnSubmit;
  const taken = fresh
    ? undefined
    : await lookUntil(ENTER_LOOKS_MS, look, (s) => s.kind === 'input' && submitted(shown, s));
  times.lap('verify');
  if (taken) return;
  let [presses, lastPress, emptied] = [1, firstPress, false];
  for (let next = firstPress + ENTER_CHECK_MS; ; next = Date.now() + ENTER_CHECK_MS) {
    await sleep(Math.max(0, next - Date.now()));
    const now = await look();
    times.lap('verify');
    if (submitted(shown, now)) return;
    emptied ||= !holdsText(now);
    if (Date.now() - firstPress >= (screen.submitTimeoutMs ?? SUBMIT_TIMEOUT_MS)) {
      // The box gave the text up, but the start screen never went: taken, with the harness slow to show it.
      if (emptied) return;
      throw new Error(
        `the message is still in the agent's input box after ${presses} Enter presses: it was not submitted`,
      );
    }
    // Pressed again only while the text is still in the box, and not at once: a busy TUI takes a while to act on a
    // key, and a press landing on the next screen could answer it.
    if (holdsText(now) && !wait.openPrompt() && presses < ENTER_ATTEMPTS && Date.now() - lastPress >= SUBMIT_WAIT_MS) {
      await tmux.sendEnter(session);
      [presses, lastPress] = [presses + 1, Date.now()];
    }
  }
}

/**
 * Looks at the pane at each of `atMs` (ms from now) until `done` says what it shows is enough: that, or undefined
 * once the looks are spent.
 */
async function lookUntil<T>(atMs: readonly number[], look: () => Promise<T>, done: (seen: T) => boolean) {
  const start = Date.now();
  for (const at of atMs) {
    await sleep(Math.max(0, start + at - Date.now()));
    const seen = await look();
    if (done(seen)) return seen;
  }
  return undefined;
}

function holdsText(s: Screen): boolean {
  return s.kind === 'input' && s.text !== '';
}

/**
 * Whether the screen shows the text taken: the box no longer holds it, and a start screen the text was typed on has
 * given way. Until then the next message would be typed into the old screen's emptied box, or into the blank pane
 * between the two views, and be lost (opencode, measured: README in test/fixtures/panes).
 */
function submitted(typedOn: Screen, now: Screen): boolean {
  if (holdsText(now)) return false;
  if (typedOn.kind !== 'input' || !typedOn.replacedOnSubmit) return true;
  return now.kind !== 'starting' && !(now.kind === 'input' && now.replacedOnSubmit);
}

/**
 * For a program whose screen Leo cannot read: one Enter after the paste, and another (up to ENTER_ATTEMPTS) only
 * while the end of the typed text still shows on the cursor's line, the one place that says the program echoed the
 * text and has not taken it (an Enter swallowed with the paste). Once the text leaves that line, or when it never
 * showed there (the program does not echo, or draws its input elsewhere), Leo can tell no more and the message counts
 * as delivered. So a program whose screen does not move after Enter (`cat > file`, a quiet REPL) is not failed and
 * gets no extra Enter, which could repeat its last command or answer a question it asked meanwhile. Nothing is typed
 * while a prompt is open in the agent's thread, and a prompt that opens after the first Enter ends the presses: the
 * program took the text and asks something now.
 */
async function pasteAndWatchPane(
  tmux: PasteTarget,
  session: string,
  text: string,
  wait: InputWait | undefined,
  times: StepTimes,
): Promise<void> {
  const hold = wait ? new HoldNotes(wait) : undefined;
  const clear = async () => {
    if (wait && hold) await waitWhilePromptOpen(wait, hold);
  };
  await clear();
  times.lap('ready');
  const pasted = Date.now();
  await tmux.pasteText(session, text, { bracketed: true });
  times.lap('paste');
  // What the program was typed: the text as pasteText made it inert.
  const tail = typedTail(inertText(text));
  const sitting = (line: string) => tail !== '' && line.includes(tail);
  // An echoing program that shows the text has taken it in: Enter needs no more settle. One that does not echo (or
  // not yet) gets the whole settle, as nothing on its screen can say it is ready.
  const echoed = await lookUntil([ECHO_LOOK_MS], () => tmux.cursorLine(session), sitting);
  if (!echoed) await sleep(Math.max(0, pasted + PASTE_SETTLE_MS - Date.now()));
  times.lap('settle');
  await clear();
  // The first look and the first press share one tmux call (they add up at a fleet's send rate).
  const firstLook = echoed
    ? (await tmux.sendEnter(session), echoed)
    : await tmux.cursorLine(session, { thenEnter: true });
  times.lap('enter');
  if (!sitting(firstLook)) return;
  for (let attempt = 1; attempt <= ENTER_ATTEMPTS; attempt++) {
    if (attempt > 1) {
      if (wait?.openPrompt()) return;
      await tmux.sendEnter(session);
    }
    // The text leaves the cursor's line within a frame of an Enter taken; another press waits ENTER_CHECK_MS.
    const gone = await lookUntil(
      [...ENTER_LOOKS_MS, ENTER_CHECK_MS],
      () => tmux.cursorLine(session),
      (l) => !sitting(l),
    );
    times.lap('verify');
    if (gone !== undefined) return;
  }
  throw new Error(
    `the message is still on the program's input line after ${ENTER_ATTEMPTS} Enter presses: it was not submitted`,
  );
}

/** The end of the text's last non-blank line: what an echoing program shows at its cursor after the paste. */
function typedTail(text: string): string {
  const last = text
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean)
    .at(-1);
  return [...(last ?? '')].slice(-TYPED_TAIL_CHARS).join('');
}

export interface TmuxRouteDeps {
  tmux: PasteTarget;
  isRunning(agent: string): boolean;
  /** The agent's screen reader (from its harness), or null when its screen cannot be read. */
  screenOf(agent: string): ScreenReader | null;
  /** Says in the agent's thread why a delivery is held (a dialog up, the input box busy). */
  note(agent: string, text: string): void;
  /** What the permission prompt or questions card open in the agent's thread asks, or null. */
  openPrompt(agent: string): string | null;
  /** Raises or clears the agent's needs_input alert (InputWait.held). */
  held(agent: string, hold: NeedsInputHold | null): void;
  /** How long a delivery waits for the input box. */
  readyTimeoutMs: number;
}

/** The route every harness has: type into the agent's pane. Available whenever the agent's session runs. */
export function tmuxPasteRoute(d: TmuxRouteDeps): DeliveryRoute {
  return {
    name: 'tmux',
    available: d.isRunning,
    deliver: (agent, text, times) => {
      const read = d.screenOf(agent);
      const session = sessionName(agent);
      const wait: InputWait = {
        agent,
        timeoutMs: d.readyTimeoutMs,
        note: (t) => d.note(agent, t),
        press: (keys) => pressKeys(d.tmux, session, keys),
        openPrompt: () => d.openPrompt(agent),
        held: (hold) => d.held(agent, hold),
      };
      return pasteAndSubmit(d.tmux, session, text, read ? { read, wait } : { wait }, times);
    },
  };
}
