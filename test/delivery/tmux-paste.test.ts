import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ENTER_ATTEMPTS, pasteAndSubmit, type PasteTarget } from '../../src/delivery/tmux-paste.js';

/** A pane that takes the prompt only at the n-th Enter (Infinity: never). */
function pane(takesAtEnter: number): PasteTarget & { calls: string[] } {
  let enters = 0;
  let screen = '> ';
  const calls: string[] = [];
  return {
    calls,
    async pasteText(_s, text, opts) {
      calls.push(`paste:${opts?.bracketed ? 'bracketed' : 'plain'}`);
      screen = `> ${text}`;
    },
    async sendEnter() {
      calls.push('enter');
      if (++enters === takesAtEnter) screen = '> \nworking…';
    },
    async captureThenEnter() {
      const before = screen;
      await this.sendEnter('');
      return before;
    },
    async capturePane() {
      return screen;
    },
  };
}

describe('paste then Enter, verified', () => {
  it('one bracketed paste and one Enter when the pane takes it', async () => {
    const p = pane(1);
    await pasteAndSubmit(p, 'leo-den', 'line one\nline two');
    assert.deepEqual(p.calls, ['paste:bracketed', 'enter']);
  });

  it('presses Enter again when the first one was swallowed', async () => {
    const p = pane(2);
    await pasteAndSubmit(p, 'leo-den', 'hi');
    assert.deepEqual(p.calls, ['paste:bracketed', 'enter', 'enter']);
  });

  it(`gives up after ${ENTER_ATTEMPTS} presses with an error that says so`, async () => {
    const p = pane(Infinity);
    await assert.rejects(pasteAndSubmit(p, 'leo-den', 'hi'), /did not change after 3 Enter presses/);
    assert.equal(p.calls.filter((c) => c === 'enter').length, ENTER_ATTEMPTS);
  });
});
