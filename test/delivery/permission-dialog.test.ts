// Pressing an answer into a harness's permission dialog (issue 27): pressed once, again only when the TUI dropped
// the keys (nothing on screen moved), never into the next dialog that replaced it.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { answerPermissionDialog, type AgentTerminal } from '../../src/delivery/permission-dialog.js';
import type { Screen } from '../../src/harnesses/screen.js';

const TIMING = { takeMs: 60, pollMs: 10, attempts: 3 };
const dialog = (what: string): Screen => ({
  kind: 'dialog',
  question: 'Do you want to proceed?',
  options: ['Yes', 'No'],
  permission: { allow: ['Enter'], deny: ['Down', 'Enter'] },
  answer: [what], // a stand-in's way to tell two dialogs apart
});

/** A terminal showing `screens` in turn: each press moves to the next screen after `takes` presses. */
function terminal(screens: { pane: string; screen: Screen }[], dropFirst = 0): AgentTerminal & { pressed: string[][] } {
  let at = 0;
  let dropped = 0;
  return {
    pressed: [],
    async look() {
      return screens[at] ?? null;
    },
    async press(_agent, keys) {
      this.pressed.push([...keys]);
      if (dropped++ < dropFirst) return;
      at++;
    },
  };
}

describe('answering a permission dialog in the terminal', () => {
  it('presses the decision’s keys once and sees the dialog go', async () => {
    const term = terminal([
      { pane: 'dialog', screen: dialog('a') },
      { pane: 'prompt', screen: { kind: 'input', text: '' } },
    ]);
    assert.equal(await answerPermissionDialog(term, 'den', 'deny', TIMING), 'answered');
    assert.deepEqual(term.pressed, [['Down', 'Enter']]);
  });

  it('no dialog up: nothing is pressed, the answer is too late', async () => {
    const term = terminal([{ pane: 'prompt', screen: { kind: 'input', text: '' } }]);
    assert.equal(await answerPermissionDialog(term, 'den', 'allow', TIMING), 'gone');
    assert.deepEqual(term.pressed, []);
  });

  it('keys the TUI dropped are pressed again, a bounded number of times', async () => {
    const retried = terminal(
      [
        { pane: 'dialog', screen: dialog('a') },
        { pane: 'prompt', screen: { kind: 'input', text: '' } },
      ],
      1,
    );
    assert.equal(await answerPermissionDialog(retried, 'den', 'allow', TIMING), 'answered');
    assert.equal(retried.pressed.length, 2);

    const stuck = terminal([{ pane: 'dialog', screen: dialog('a') }], 99);
    await assert.rejects(answerPermissionDialog(stuck, 'den', 'allow', TIMING), /did not take the answer/);
    assert.equal(stuck.pressed.length, 3);
  });

  it('a next dialog in its place is not answered too', async () => {
    const term = terminal([
      { pane: 'dialog for touch a', screen: dialog('a') },
      { pane: 'dialog for touch b', screen: dialog('b') },
    ]);
    assert.equal(await answerPermissionDialog(term, 'den', 'allow', TIMING), 'answered');
    assert.deepEqual(term.pressed, [['Enter']]);
  });
});
