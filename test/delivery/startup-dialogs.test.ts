import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Screen } from '../../src/harnesses/screen.js';
import { answerStartupDialogs } from '../../src/delivery/startup-dialogs.js';

const TRUST: Screen = {
  kind: 'dialog',
  question: 'Is this a project you created or one you trust?',
  options: ['No, exit', 'Yes, I trust this folder'],
  answer: ['Down'],
};
/** The same dialog once the Down took: its highlight on the answer. */
const TRUST_ON_YES: Screen = { ...TRUST, answer: ['Enter'] };
const KEY: Screen = {
  kind: 'dialog',
  question: 'Do you want to use this API key?',
  options: ['Yes', 'No (recommended)'],
};

/** Screens in order; the last one repeats. */
function screens(...list: Screen[]) {
  let i = 0;
  return async () => list[Math.min(i++, list.length - 1)]!;
}

// Each test watches its own scripted screens through the real look interval: side by side they take the slowest's time.
describe('start-up dialogs', { concurrency: true }, () => {
  it("answers Leo's own dialog a key per screen, each once however long it stays drawn, and stops at the input box", async () => {
    const pressed: string[][] = [];
    await answerStartupDialogs(
      screens({ kind: 'starting' }, TRUST, TRUST, TRUST, TRUST_ON_YES, TRUST_ON_YES, { kind: 'input', text: '' }),
      async (k) => void pressed.push([...k]),
    );
    assert.deepEqual(pressed, [['Down'], ['Enter']]);
  });

  it('leaves every other dialog to the person, and gives up after its time', async () => {
    const pressed: string[][] = [];
    const t0 = Date.now();
    await answerStartupDialogs(screens(KEY), async (k) => void pressed.push([...k]), 800);
    assert.deepEqual(pressed, []);
    assert.ok(Date.now() - t0 < 3_000);
  });

  it('presses again when the dialog is still up 2 s later (a starting TUI can drop keys), at most three times', async () => {
    const pressed: string[][] = [];
    await answerStartupDialogs(screens(TRUST), async (k) => void pressed.push([...k]), 7_500);
    assert.equal(pressed.length, 3);
  });

  it('stops when the harness exited', async () => {
    const pressed: string[][] = [];
    await answerStartupDialogs(
      screens({ kind: 'exited', detail: 'exit 1' }, TRUST),
      async (k) => void pressed.push([...k]),
    );
    assert.deepEqual(pressed, []);
  });
});
