import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ENTER_ATTEMPTS, pasteAndSubmit, type PasteTarget } from '../../src/delivery/tmux-paste.js';
import type { NeedsInputHold } from '../../src/wire/fleet.js';
import type { Screen } from '../../src/harnesses/screen.js';

// Each test drives its own fake screen and spends its time in the delivery's real waits, on an idle event loop:
// run side by side, a describe takes as long as its slowest test instead of their sum.
const CONCURRENT = { concurrency: true };

/**
 * A program whose screen Leo cannot read, seen through its cursor's line: it takes the line only at the n-th Enter
 * (Infinity: never), and echoes what it is typed unless `echo` is false.
 */
function pane(takesAtEnter: number, echo = true): PasteTarget & { calls: string[] } {
  let enters = 0;
  let cursorLine = '> ';
  const calls: string[] = [];
  return {
    calls,
    async pasteText(_s, text, opts) {
      calls.push(`paste:${opts?.bracketed ? 'bracketed' : 'plain'}`);
      if (echo) cursorLine = `> ${text.split('\n').at(-1)}`;
    },
    async sendEnter() {
      calls.push('enter');
      // Taken: the cursor moves to a new, empty line (what `cat > file` shows: nothing else changes).
      if (++enters === takesAtEnter) cursorLine = '';
    },
    async sendKeys() {
      throw new Error('not used without a screen reader');
    },
    async cursorLine(_s, opts) {
      const before = cursorLine;
      if (opts?.thenEnter) await this.sendEnter('');
      return before;
    },
    async capturePane() {
      throw new Error('the cursor line is what is watched');
    },
  };
}

describe('paste then Enter into a program whose screen is not read', CONCURRENT, () => {
  it('one bracketed paste and one Enter when the text leaves the cursor line', async () => {
    const p = pane(1);
    await pasteAndSubmit(p, 'leo-den', 'line one\nline two');
    assert.deepEqual(p.calls, ['paste:bracketed', 'enter']);
  });

  it('presses Enter again while the text still sits on the cursor line (the first one was swallowed)', async () => {
    const p = pane(2);
    await pasteAndSubmit(p, 'leo-den', 'hi');
    assert.deepEqual(p.calls, ['paste:bracketed', 'enter', 'enter']);
  });

  it('a program that shows nothing of the text gets one Enter, and the message counts as delivered', async () => {
    const p = pane(Infinity, false);
    await pasteAndSubmit(p, 'leo-den', 'hi');
    assert.deepEqual(p.calls, ['paste:bracketed', 'enter']);
  });

  it(`gives up after ${ENTER_ATTEMPTS} presses with the text still on the input line, saying so`, async () => {
    const p = pane(Infinity);
    await assert.rejects(pasteAndSubmit(p, 'leo-den', 'hi'), /still on the program's input line after 3 Enter presses/);
    assert.equal(p.calls.filter((c) => c === 'enter').length, ENTER_ATTEMPTS);
  });
});

/**
 * A harness whose screen is read: a scripted sequence of screens before the paste (a dialog, then the box), and how
 * the box behaves after it: it takes the text at the n-th Enter (or never), `lateLooks` looks after that Enter, then
 * shows the `afterSubmit` screens one look each before its empty box. `onStart`: the box is on a start screen that a
 * submit replaces.
 */
function harness(opts: {
  before: Screen[];
  takesAtEnter: number;
  pasteShows?: boolean;
  onStart?: boolean;
  lateLooks?: number;
  afterSubmit?: Screen[];
  /** The permission prompt open in the agent's thread at each moment it is asked. */
  prompt?: () => string | null;
  /** Screens shown once the paste went in, one look each, before the box with the text. */
  afterPaste?: Screen[];
}) {
  const calls: string[] = [];
  const notes: string[] = [];
  /** Each call to the alert seam, with whether the paste had happened yet. */
  const alerts: { hold: NeedsInputHold | null; pasted: boolean }[] = [];
  const before = [...opts.before];
  const start = opts.onStart ? { replacedOnSubmit: true as const } : {};
  let current: Screen = before.shift() ?? { kind: 'input', text: '', ...start };
  const next: Screen[] = [];
  let enters = 0;
  const target: PasteTarget = {
    async pasteText(_s, text) {
      calls.push('paste');
      if (opts.pasteShows !== false) current = { kind: 'input', text, ...start };
      if (opts.pasteShows !== false) next.push(...(opts.afterPaste ?? []), current);
    },
    async sendEnter() {
      calls.push('enter');
      if (++enters === opts.takesAtEnter)
        next.push(...Array(opts.lateLooks ?? 0).fill(current), ...(opts.afterSubmit ?? []), {
          kind: 'input',
          text: '',
        });
    },
    async sendKeys(_s, keys) {
      calls.push(`keys:${keys.join(' ')}`);
      // The scripted screens stand for the dialog Leo answers: once answered, the box shows.
      before.length = 0;
      current = { kind: 'input', text: '' };
    },
    async cursorLine() {
      throw new Error('not used with a screen reader');
    },
    async capturePane() {
      // Each look before the paste, and after the taking Enter, moves the scripted screens on.
      if (!calls.includes('paste') && before.length) current = before.shift()!;
      if (next.length) current = next.shift()!;
      return JSON.stringify(current);
    },
  };
  const screen = {
    read: (pane: string) => JSON.parse(pane) as Screen,
    wait: {
      agent: 'den',
      timeoutMs: 10_000,
      note: (t: string) => void notes.push(t),
      press: (keys: readonly string[]) => target.sendKeys('leo-den', keys),
      openPrompt: () => opts.prompt?.() ?? null,
      held: (hold: NeedsInputHold | null) => void alerts.push({ hold, pasted: calls.includes('paste') }),
    },
  };
  return { target, screen, calls, notes, alerts, left: () => next.length };
}

describe('paste into a harness whose screen is read', CONCURRENT, () => {
  it('types nothing while a dialog is up, says once what it asks, and types once the box is back', async () => {
    const dialog: Screen = { kind: 'dialog', question: 'Is this a project you trust?', options: ['No, exit', 'Yes'] };
    const h = harness({
      before: [{ kind: 'starting' }, ...Array(8).fill(dialog), { kind: 'input', text: '' }],
      takesAtEnter: 1,
    });
    await pasteAndSubmit(h.target, 'leo-den', '[Leo Chat] hi', h.screen);
    assert.deepEqual(h.calls, ['paste', 'enter']);
    assert.equal(h.notes.length, 1);
    assert.match(h.notes[0]!, /den's terminal is asking “Is this a project you trust\?” \(No, exit \/ Yes\)/);
    assert.match(h.notes[0]!, /typed nothing/);
  });

  it('a dialog Leo answers itself (its own workspace trust) gets its keys, no note, and then the message', async () => {
    const trust: Screen = {
      kind: 'dialog',
      question: 'Is this a project you created or one you trust?',
      options: ['No, exit', 'Yes, I trust this folder'],
      answer: ['Down', 'Enter'],
    };
    const h = harness({ before: Array(20).fill(trust), takesAtEnter: 1 });
    await pasteAndSubmit(h.target, 'leo-den', '[Leo Chat] hi', h.screen);
    assert.deepEqual(h.calls, ['keys:Down Enter', 'paste', 'enter']);
    assert.deepEqual(h.notes, []);
  });

  it('text left in the box after every Enter is not submitted: it fails, never counts as delivered', async () => {
    const h = harness({ before: [], takesAtEnter: Infinity });
    const screen = { ...h.screen, submitTimeoutMs: 5_000 };
    await assert.rejects(pasteAndSubmit(h.target, 'leo-den', '[Leo Chat] hi', screen), /not submitted/);
    assert.equal(h.calls.filter((c) => c === 'enter').length, ENTER_ATTEMPTS);
  });

  it('an Enter acted on late (opencode creating its session under load) is waited for, not failed', async () => {
    // 20 looks: 6 s after the first press, past the 3 presses' 4.5 s.
    const h = harness({ before: [], takesAtEnter: 1, lateLooks: 20 });
    await pasteAndSubmit(h.target, 'leo-den', '[Leo Chat] hi', h.screen);
    assert.equal(h.calls.filter((c) => c === 'enter').length, ENTER_ATTEMPTS);
  });

  it('typed on a start screen a submit replaces: done only once the next view shows, not at the emptied old box', async () => {
    const emptiedStart: Screen = { kind: 'input', text: '', replacedOnSubmit: true };
    const h = harness({
      before: [],
      takesAtEnter: 1,
      onStart: true,
      afterSubmit: [emptiedStart, emptiedStart, { kind: 'starting' }, { kind: 'starting' }],
    });
    await pasteAndSubmit(h.target, 'leo-den', '[Leo Chat] hi', h.screen);
    assert.equal(h.left(), 0, 'returned while the old screen or the blank between the views still showed');
    assert.deepEqual(h.calls, ['paste', 'enter']);
  });

  it('a box that empties on a start screen that never goes counts as taken once the submit time is up', async () => {
    const h = harness({
      before: [],
      takesAtEnter: 1,
      onStart: true,
      afterSubmit: Array(40).fill({ kind: 'input', text: '', replacedOnSubmit: true }),
    });
    await pasteAndSubmit(h.target, 'leo-den', '[Leo Chat] hi', { ...h.screen, submitTimeoutMs: 1_000 });
    assert.deepEqual(h.calls, ['paste', 'enter']);
  });

  it('presses Enter again when the first is swallowed, and stops once the box is empty', async () => {
    const h = harness({ before: [], takesAtEnter: 2 });
    await pasteAndSubmit(h.target, 'leo-den', '[Leo Chat] hi', h.screen);
    assert.deepEqual(h.calls, ['paste', 'enter', 'enter']);
  });

  it('a paste that never shows in the box gets no Enter (it would submit nothing, or answer something else)', async () => {
    const h = harness({ before: [], takesAtEnter: 1, pasteShows: false });
    await assert.rejects(pasteAndSubmit(h.target, 'leo-den', 'hi', h.screen), /did not show in the agent's input box/);
    assert.deepEqual(h.calls, ['paste']);
  });

  it('a harness that exited fails the delivery at once with what it said', async () => {
    const h = harness({
      before: [{ kind: 'exited', detail: 'exit 1: No conversation found to continue' }],
      takesAtEnter: 1,
    });
    await assert.rejects(pasteAndSubmit(h.target, 'leo-den', 'hi', h.screen), /exited .*No conversation found/);
    assert.deepEqual(h.calls, []);
  });

  it('gives up after its timeout, saying what the screen showed', async () => {
    const h = harness({ before: [{ kind: 'input', text: 'half-typed by a person' }], takesAtEnter: 1 });
    await assert.rejects(
      pasteAndSubmit(h.target, 'leo-den', 'hi', { ...h.screen, wait: { ...h.screen.wait, timeoutMs: 600 } }),
      /not ready for input within 1 s \(its input box holds text that was not sent: “half-typed by a person”\)/,
    );
    assert.deepEqual(h.calls, []);
  });
});

/** An open prompt that closes `ms` after it is first asked about once `from()` holds (the prompt is answered then). */
function promptFor(ms: number, from: () => boolean = () => true) {
  let closesAt = 0;
  return () => {
    if (!from()) return null;
    closesAt ||= Date.now() + ms;
    return Date.now() < closesAt ? 'Bash: touch x.txt' : null;
  };
}

describe('no key while a permission prompt is open or a dialog covers the box (issue 20 item 1)', CONCURRENT, () => {
  it('a prompt open in the thread holds the paste, pending, with one note; it goes in once answered', async () => {
    const h = harness({ before: [], takesAtEnter: 1, prompt: promptFor(1_200) });
    const started = Date.now();
    await pasteAndSubmit(h.target, 'leo-den', '[Leo Chat] hi', h.screen);
    assert.ok(Date.now() - started >= 1_200, 'typed before the prompt was answered');
    assert.deepEqual(h.calls, ['paste', 'enter']);
    assert.equal(h.notes.length, 1);
    assert.match(h.notes[0]!, /den is waiting for an answer to “Bash: touch x.txt”.*types nothing/);
  });

  it('a prompt that opens once the text is in the box holds the Enter until it is answered', async () => {
    let pastedAt = 0;
    const h = harness({ before: [], takesAtEnter: 1, prompt: promptFor(1_200, () => pastedAt > 0) });
    const paste = h.target.pasteText.bind(h.target);
    h.target.pasteText = async (s, t) => void ((pastedAt = Date.now()), await paste(s, t));
    let enteredAt = 0;
    const enter = h.target.sendEnter.bind(h.target);
    h.target.sendEnter = async (s) => void ((enteredAt = Date.now()), await enter(s));
    await pasteAndSubmit(h.target, 'leo-den', '[Leo Chat] hi', h.screen);
    assert.ok(enteredAt - pastedAt >= 1_200, `Enter ${enteredAt - pastedAt} ms after the paste, prompt still open`);
    assert.deepEqual(h.calls, ['paste', 'enter']);
  });

  it('a dialog that covers the box after the paste gets no Enter; the message waits and goes in after it', async () => {
    const dialog: Screen = { kind: 'dialog', question: 'Do you want to proceed?', options: ['Yes', 'No'] };
    const h = harness({ before: [], takesAtEnter: 1, afterPaste: Array(12).fill(dialog) });
    await pasteAndSubmit(h.target, 'leo-den', '[Leo Chat] hi', h.screen);
    assert.deepEqual(h.calls, ['paste', 'enter']);
    assert.equal(h.left(), 0, 'Enter was pressed while the dialog showed');
    assert.match(h.notes[0]!, /asking “Do you want to proceed\?”.*typed nothing/);
  });

  it('a program whose screen is not read: nothing typed while a prompt is open, then one paste and one Enter', async () => {
    const p = pane(1);
    const notes: string[] = [];
    const prompt = promptFor(1_000);
    const wait = {
      agent: 'den',
      timeoutMs: 10_000,
      note: (t: string) => void notes.push(t),
      press: async () => {},
      held: () => {},
    };
    const started = Date.now();
    await pasteAndSubmit(p, 'leo-den', 'hi', { wait: { ...wait, openPrompt: prompt } });
    assert.ok(Date.now() - started >= 1_000);
    assert.deepEqual(p.calls, ['paste:bracketed', 'enter']);
    assert.equal(notes.length, 1);
  });

  it('a program whose screen is not read: a prompt that opens after the first Enter stops further presses', async () => {
    const p = pane(Infinity);
    const wait = { agent: 'den', timeoutMs: 10_000, note: () => {}, press: async () => {}, held: () => {} };
    await pasteAndSubmit(p, 'leo-den', 'hi', {
      wait: { ...wait, openPrompt: promptFor(60_000, () => p.calls.includes('enter')) },
    });
    assert.deepEqual(p.calls, ['paste:bracketed', 'enter']);
  });
});

/**
 * The alerts raised, in order: each look reports the hold it sees, and the alert service keeps one alert per hold, so
 * a hold counts when it differs from what was reported just before (a clear included).
 */
function raised(h: { alerts: { hold: NeedsInputHold | null }[] }): NeedsInputHold[] {
  let last = 'null';
  return h.alerts.flatMap(({ hold }) => {
    const key = JSON.stringify(hold);
    const changed = key !== last;
    last = key;
    return hold && changed ? [hold] : [];
  });
}

describe("the agent's own needs_input alert while a message waits (issue 29 item 7)", CONCURRENT, () => {
  it('a dialog Leo leaves to a person raises it once, quoting the question; the box coming back clears it', async () => {
    const dialog: Screen = { kind: 'dialog', question: 'Do you want to use this API key?', options: ['Yes', 'No'] };
    const h = harness({ before: [...Array(10).fill(dialog), { kind: 'input', text: '' }], takesAtEnter: 1 });
    await pasteAndSubmit(h.target, 'leo-den', '[Leo Chat] hi', h.screen);
    assert.deepEqual(raised(h), [
      {
        reason: 'dialog',
        text: 'Its terminal is asking “Do you want to use this API key?” (Yes / No). Answer it there; your message waits for it.',
      },
    ]);
    // Cleared when the dialog went, before anything was typed, and never raised again.
    const cleared = h.alerts.findIndex((a) => a.hold === null);
    assert.ok(cleared > 0 && !h.alerts[cleared]!.pasted, 'cleared once the box showed, before the paste');
    assert.equal(h.alerts.at(-1)!.hold, null);
  });

  it('text someone left in the box raises it without quoting that text; clearing the box clears it', async () => {
    const busy: Screen = { kind: 'input', text: 'rm -rf my half-typed thought' };
    const h = harness({ before: [...Array(16).fill(busy), { kind: 'input', text: '' }], takesAtEnter: 1 });
    await pasteAndSubmit(h.target, 'leo-den', '[Leo Chat] hi', h.screen);
    assert.deepEqual(
      raised(h).map((a) => a.reason),
      ['unsent_text'],
    );
    assert.doesNotMatch(raised(h)[0]!.text, /half-typed/);
    assert.ok(
      h.alerts.some((a) => a.hold === null && !a.pasted),
      'cleared before the paste',
    );
  });

  it('a dialog Leo answers itself, a permission card open for the question, or a short redraw raise nothing', async () => {
    const trust: Screen = { kind: 'dialog', question: 'Trust?', options: ['No', 'Yes'], answer: ['Down', 'Enter'] };
    const answered = harness({ before: [trust, trust, trust, trust, trust, trust], takesAtEnter: 1 });
    await pasteAndSubmit(answered.target, 'leo-den', '[Leo Chat] hi', answered.screen);
    assert.deepEqual(raised(answered), []);

    const permission: Screen = { kind: 'dialog', question: 'Do you want to proceed?', options: ['Yes', 'No'] };
    const carded = harness({
      before: [permission, permission, { kind: 'input', text: '' }],
      takesAtEnter: 1,
      prompt: promptFor(2_500),
    });
    await pasteAndSubmit(carded.target, 'leo-den', '[Leo Chat] hi', carded.screen);
    assert.deepEqual(raised(carded), [], 'the card alerts; the agent’s own alert gives way');

    const redraw = harness({ before: [permission, permission, { kind: 'input', text: '' }], takesAtEnter: 1 });
    await pasteAndSubmit(redraw.target, 'leo-den', '[Leo Chat] hi', redraw.screen);
    assert.deepEqual(raised(redraw), [], 'half a second of a dialog is a redraw, not a question');
  });

  it('raised before a card opens for the same question, it is cleared as the card opens', async () => {
    const dialog: Screen = { kind: 'dialog', question: 'Do you want to proceed?', options: ['Yes', 'No'] };
    let h: ReturnType<typeof harness> | undefined;
    h = harness({
      before: [...Array(9).fill(dialog), { kind: 'input', text: '' }],
      takesAtEnter: 1,
      prompt: promptFor(1_000, () => raised(h!).length > 0),
    });
    await pasteAndSubmit(h.target, 'leo-den', '[Leo Chat] hi', h.screen);
    assert.equal(raised(h).length, 1);
    const last = h.alerts.findLastIndex((a) => a.hold !== null);
    assert.equal(h.alerts[last + 1]?.hold, null, 'cleared at once when the card opened');
  });
});
