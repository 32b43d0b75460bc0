// Permission prompts no hook holds any more (issue 27 item 3, and Codex's approvals racing the terminal): the prompt
// stays answerable while the agent's own dialog is up in its terminal, an answer is pressed there once, and the
// dialog leaving the terminal closes the prompt. The terminal is a stand-in whose dialog takes keys like a TUI.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { OPENCODE_DECISIONS } from '../../../src/harnesses/opencode/opencode-plugin/protocol.js';
import type { AskError } from '../../../src/chat/asks/asks.js';
import { DialogWatch } from '../../../src/chat/permissions/dialog-watch.js';
import type { DecisionFormat } from '../../../src/wire/permission.js';
import { CLAUDE_DECISIONS } from '../../../src/harnesses/hook-decisions.js';
import { PermissionPrompts } from '../../../src/chat/permissions/permission-prompts.js';
import { ChatStore } from '../../../src/chat/threads/chat-store.js';
import type { Message } from '../../../src/wire/message.js';
import { ManualClock } from '../../../src/core/clock.js';
import type { AgentTerminal } from '../../../src/delivery/permission-dialog.js';
import { EventBus } from '../../../src/events/bus.js';
import { openDatabase } from '../../../src/store/database.js';
import { until } from '../../helpers/wait.js';

const PERMISSION_MS = 120_000;
const BASH = { tool_name: 'Bash', tool_input: { command: 'touch x.txt' } };
const CODEX: DecisionFormat = { ...CLAUDE_DECISIONS, dialogAfterHook: true };

/** A terminal whose permission dialog is up until its allow or deny keys are pressed (or someone at it answers). */
class StandInTerminal implements AgentTerminal {
  dialog = true;
  pressed: string[][] = [];
  async look() {
    const screen = this.dialog
      ? {
          kind: 'dialog' as const,
          question: 'Do you want to proceed?',
          options: ['Yes', 'No'],
          permission: { allow: ['Enter'], deny: ['Down', 'Enter'] },
        }
      : { kind: 'input' as const, text: '' };
    return { pane: this.dialog ? 'dialog' : 'prompt', screen };
  }
  async press(_agent: string, keys: readonly string[]) {
    this.pressed.push([...keys]);
    await sleep(50);
    this.dialog = false;
  }
}

function setup(t: TestContext, decisions: DecisionFormat = CLAUDE_DECISIONS, dbDir?: string) {
  const dir = dbDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'leo-late-answers-'));
  const db = openDatabase(path.join(dir, 'chat.db'));
  const clock = new ManualClock(Date.UTC(2026, 11, 4, 9));
  const store = new ChatStore(db, clock);
  const terminal = new StandInTerminal();
  const dialogs = new DialogWatch({ terminal, pollMs: 20 });
  const prompts = new PermissionPrompts({
    store,
    bus: new EventBus(clock),
    clock,
    timeouts: () => ({ permissionMs: PERMISSION_MS, questionMs: 600_000 }),
    decisions: () => decisions,
    terminal,
    dialogs,
  });
  t.after(async () => {
    await prompts.expireAll();
    db.close();
    if (!dbDir) fs.rmSync(dir, { recursive: true, force: true });
  });
  const ask = () => prompts.request('den', BASH, new AbortController().signal);
  const only = () => store.page('den', { limit: 10 }).messages.find((m) => m.kind === 'permission')!;
  const conflict = async (p: Promise<Message>) =>
    p.then(
      () => assert.fail('expected a 409'),
      (err: AskError) => (assert.equal(err.status, 409, err.message), err.code),
    );
  return { store, clock, terminal, prompts, ask, only, conflict, dir };
}

describe('a permission prompt answered after its hook is gone (issue 27 item 3)', () => {
  it('past its chat deadline, the prompt says the agent still waits, and Allow is pressed in its dialog once', async (t) => {
    const { clock, terminal, prompts, ask, only, conflict } = setup(t);
    const hook = ask();
    assert.equal(Date.parse(only().permission!.deadline!), clock.now() + PERMISSION_MS);
    clock.advance(PERMISSION_MS);
    assert.deepEqual(await hook, {}, 'the hook gives no decision: Claude keeps its dialog');
    await until('the prompt to wait in the terminal', () => only().permission?.terminal_waiting, 2_000, 10);
    assert.equal(only().state, 'expired');

    // Two devices answer at once: the first wins, the other is told, and the dialog gets one answer.
    const [first, second] = [
      prompts.answer('den', only().id, { values: ['allow'] }),
      prompts.answer('den', only().id, { values: ['deny'] }),
    ];
    assert.equal(await conflict(second), 'answered_elsewhere');
    assert.deepEqual([(await first).state, (await first).answer], ['answered', { values: ['allow'], text: '' }]);
    assert.deepEqual(terminal.pressed, [['Enter']]);
    assert.equal(only().permission?.terminal_waiting, undefined);
    assert.equal(await conflict(prompts.answer('den', only().id, { values: ['allow'] })), 'answered_elsewhere');
  });

  it('a dialog answered in the terminal closes the prompt; a late answer is told so', async (t) => {
    const { clock, terminal, prompts, ask, only, conflict } = setup(t);
    void ask();
    clock.advance(PERMISSION_MS);
    await until('the prompt to wait in the terminal', () => only().permission?.terminal_waiting, 2_000, 10);
    terminal.dialog = false;
    await until('the prompt to close', () => !only().permission?.terminal_waiting, 2_000, 10);
    assert.equal(only().state, 'expired');
    assert.equal(await conflict(prompts.answer('den', only().id, { values: ['allow'] })), 'prompt_expired');
    assert.deepEqual(terminal.pressed, []);
  });

  it('with no dialog up at the deadline, the prompt just expires', async (t) => {
    const { clock, terminal, ask, only } = setup(t);
    void ask();
    terminal.dialog = false;
    clock.advance(PERMISSION_MS);
    await until('the prompt to expire', () => only().state === 'expired', 2_000, 10);
    assert.equal(only().permission?.terminal_waiting, undefined);
  });

  it('after a daemon restart, the prompt left open is answerable in the terminal', async (t) => {
    const first = setup(t);
    void first.ask();
    // The daemon dies without its shutdown sweep: the prompt is still open in the store, its hook gone.
    const next = setup(t, CLAUDE_DECISIONS, first.dir);
    await next.prompts.restore();
    assert.deepEqual([next.only().state, next.only().permission?.terminal_waiting], ['expired', true]);
    const answered = await next.prompts.answer('den', next.only().id, { values: ['deny'] });
    assert.equal(answered.state, 'answered');
    assert.deepEqual(next.terminal.pressed, [['Down', 'Enter']]);
  });
});

describe('a Codex approval races its terminal dialog (issue 27, left open)', () => {
  it('the hook returns at once; an answer from chat is pressed into Codex’s dialog', async (t) => {
    const { terminal, prompts, ask, only } = setup(t, CODEX);
    assert.deepEqual(await ask(), {}, 'Codex shows its own dialog only once the hook has returned');
    assert.equal(only().state, 'open');
    const answered = await prompts.answer('den', only().id, { values: ['allow'] });
    assert.deepEqual(answered.answer, { values: ['allow'], text: '' });
    assert.deepEqual(terminal.pressed, [['Enter']]);
  });

  it('an answer in the terminal closes the card as answered there', async (t) => {
    const { terminal, prompts, ask, only, conflict } = setup(t, CODEX);
    terminal.dialog = false; // not drawn yet: the watch waits for it rather than calling it gone
    await ask();
    await sleep(150);
    assert.equal(only().state, 'open');
    terminal.dialog = true;
    await sleep(100);
    terminal.dialog = false;
    await until('the card to close', () => only().state === 'answered', 2_000, 10);
    assert.deepEqual(only().answer, { values: ['terminal'], text: '' });
    assert.equal(await conflict(prompts.answer('den', only().id, { values: ['allow'] })), 'answered_in_terminal');
  });
});

describe('an opencode prompt past chat’s deadline (issue 27 item 3)', () => {
  // opencode never waits on Leo's plugin and reads no keys from chat: its hook is held on for the late answer.
  const OPENCODE: DecisionFormat = { ...OPENCODE_DECISIONS };
  const opencodeAsk = (prompts: PermissionPrompts, gone = new AbortController().signal) =>
    prompts.request('den', { tool_name: 'bash', tool_input: { command: 'touch x.txt' } }, gone);

  it('keeps its hook: the prompt says the agent waits, and a late Allow goes through the hook, not keys', async (t) => {
    const { clock, terminal, prompts, only } = setup(t, OPENCODE);
    let outcome: unknown = null;
    const held = opencodeAsk(prompts).then((o) => (outcome = o));
    clock.advance(PERMISSION_MS);
    await sleep(20);
    assert.deepEqual([only().state, only().permission?.terminal_waiting], ['expired', true]);
    assert.equal(outcome, null, 'the hook is still held');
    const answered = await prompts.answer('den', only().id, { values: ['allow'] });
    assert.deepEqual([answered.state, answered.permission?.terminal_waiting], ['answered', undefined]);
    assert.deepEqual(await held, { output: JSON.stringify({ response: 'once' }) });
    assert.deepEqual(terminal.pressed, [], 'nothing typed into opencode');
  });

  it('answered in opencode first (the plugin lets go): the prompt stops being answerable', async (t) => {
    const { clock, prompts, only, conflict } = setup(t, OPENCODE);
    const gone = new AbortController();
    const held = opencodeAsk(prompts, gone.signal);
    clock.advance(PERMISSION_MS);
    await sleep(20);
    gone.abort();
    assert.deepEqual(await held, {});
    assert.deepEqual([only().state, only().permission?.terminal_waiting], ['expired', undefined]);
    assert.equal(await conflict(prompts.answer('den', only().id, { values: ['allow'] })), 'prompt_expired');
  });
});
