// Reading Claude's screen from real pane captures (claude 2.1.328 in tmux; test/fixtures/panes/): what delivery
// decides before it types and after it presses Enter.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { exitDetail, paneLines, screenReader } from '../../src/harnesses/screen.js';

const FIXTURES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../test/fixtures/panes');
const pane = (name: string) => fs.readFileSync(path.join(FIXTURES, name), 'utf8');
const claude = screenReader('claude')!;

describe('claude screen', () => {
  it('an empty input box is ready', () => {
    assert.deepEqual(claude(pane('claude-ready.txt')), { kind: 'input', text: '' });
  });

  it('text typed but not sent is read from the box', () => {
    assert.deepEqual(claude(pane('claude-typed.txt')), { kind: 'input', text: '[Leo Chat] typed but not sent' });
  });

  it('a multi-line paste is read whole; a queued-messages hint is not text', () => {
    const rule = '─'.repeat(60);
    const box = (...inner: string[]) =>
      ['● done', '', rule, ...inner, rule, '  ⏸ manual mode on · esc to interrupt', ''].join('\n');
    assert.deepEqual(claude(box('❯\u00a0[Leo Chat] hello there', '  second line')), {
      kind: 'input',
      text: '[Leo Chat] hello there\nsecond line',
    });
    assert.deepEqual(claude(box('❯ Press up to edit queued messages')), { kind: 'input', text: '' });
  });

  it('the workspace-trust dialog is a dialog, with its question and answers (not an input box to type into)', () => {
    assert.deepEqual(claude(pane('claude-trust-dialog.txt')), {
      kind: 'dialog',
      question: 'Is this a project you created or one you trust?',
      options: ['No, exit', 'Yes, I trust this folder'],
      answer: ['Down'],
    });
  });

  it("answers the trust dialog a key per look: Enter only once the highlight is on the folder's Yes", () => {
    const onYes = pane('claude-trust-dialog.txt')
      .replace('❯ No, exit', '  No, exit')
      .replace('  Yes, I trust this folder', '❯ Yes, I trust this folder');
    const s = claude(onYes);
    assert.deepEqual(s.kind === 'dialog' && s.answer, ['Enter']);
    const past = pane('claude-trust-dialog.txt')
      .replace('❯ No, exit', '  No, exit')
      .replace('  Yes, I trust this folder', '  Yes, I trust this folder\n ❯ Something else');
    const beyond = claude(past);
    assert.deepEqual(beyond.kind === 'dialog' && beyond.answer, ['Up'], 'a highlight carried past comes back');
  });

  it('a tool permission dialog, whose Enter would answer Yes, is a dialog', () => {
    const s = claude(pane('claude-permission-dialog.txt'));
    assert.equal(s.kind, 'dialog');
    assert.equal(s.kind === 'dialog' && s.question, 'Do you want to proceed?');
    assert.deepEqual(s.kind === 'dialog' && s.options.slice(0, 2), [
      'Yes',
      'Yes, and always allow access to /tmp/exp/ws from this project',
    ]);
  });

  it('a tool permission dialog carries the keys that allow and deny it; other dialogs do not (issue 27)', () => {
    const s = claude(pane('claude-permission-dialog.txt'));
    assert.deepEqual(s.kind === 'dialog' && s.permission, {
      allow: ['Enter'],
      deny: ['Down', 'Down', 'Down', 'Enter'],
    });
    for (const other of ['claude-api-key-dialog.txt', 'claude-trust-dialog.txt']) {
      const d = claude(pane(other));
      assert.equal(d.kind === 'dialog' && d.permission, undefined, other);
    }
  });

  it('the API-key dialog: its question, not the line above the menu', () => {
    assert.deepEqual(claude(pane('claude-api-key-dialog.txt')), {
      kind: 'dialog',
      question: 'Do you want to use this API key?',
      options: ['Yes', 'No (recommended)'],
    });
  });

  it('an echoed prompt in the history is not a menu; a screen still drawing is starting', () => {
    assert.deepEqual(claude('❯ fix the tests\n● On it.\n\n'), { kind: 'starting' });
    assert.deepEqual(claude(''), { kind: 'starting' });
  });

  it('a dead pane is exited, with the last words and the status', () => {
    const dead = 'No conversation found to continue\n\n\nPane is dead (status 1, Tue Dec  1 09:30:21 2026)\n';
    assert.deepEqual(claude(dead), { kind: 'exited', detail: 'exit 1: No conversation found to continue' });
    assert.equal(exitDetail(paneLines('Pane is dead (status 127, x)')), 'exit 127');
  });

  it('a shell template has no reader: its program is unknown', () => {
    assert.equal(screenReader('shell'), null);
  });
});

const codex = screenReader('codex')!;
const opencode = screenReader('opencode')!;

describe('codex screen', () => {
  it('the composer drawn while loading is not ready (an Enter then is lost); with `← for agents` it is', () => {
    assert.deepEqual(codex(pane('codex-before-tui-echo.txt')).kind, 'starting');
    assert.deepEqual(codex(pane('codex-loading.txt')), { kind: 'starting' });
    assert.deepEqual(codex(pane('codex-starting.txt')), { kind: 'starting' });
    assert.deepEqual(codex(pane('codex-ready.txt')), { kind: 'input', text: '' });
  });

  it('text sitting unsubmitted is read as the box holding it; after Enter the box is empty again', () => {
    assert.deepEqual(codex(pane('codex-typed-unsubmitted.txt')), {
      kind: 'input',
      text: '[Leo Chat] typed but not submitted',
    });
    assert.deepEqual(codex(pane('codex-early-text-unsubmitted.txt')).kind, 'input');
    assert.notEqual((codex(pane('codex-early-text-unsubmitted.txt')) as { text: string }).text, '');
    assert.deepEqual(codex(pane('codex-submitted.txt')), { kind: 'input', text: '' });
    assert.deepEqual(codex(pane('codex-working.txt')), { kind: 'input', text: '' });
  });

  it('folder trust and hooks review are dialogs', () => {
    const trust = codex(pane('codex-trust-dialog.txt'));
    assert.equal(trust.kind, 'dialog');
    assert.deepEqual(trust.kind === 'dialog' && trust.options, ['Trust and continue', 'Back to Agent Command Center']);
    assert.match(trust.kind === 'dialog' ? trust.question : '', /Trust this folder\?/);
    const hooks = codex(pane('codex-hooks-review-dialog.txt'));
    assert.equal(hooks.kind, 'dialog');
    assert.equal(hooks.kind === 'dialog' && hooks.options[0], 'Review hooks');
    for (const d of [trust, hooks]) assert.equal(d.kind === 'dialog' && d.permission, undefined);
  });

  it('the approval dialog a command raises carries its allow and deny keys (issue 27)', () => {
    const s = codex(pane('codex-approval-dialog.txt'));
    assert.equal(s.kind === 'dialog' && s.question, 'Would you like to run the following command?');
    assert.deepEqual(s.kind === 'dialog' && s.permission, { allow: ['Enter'], deny: ['Down', 'Down', 'Enter'] });
  });
});

describe('opencode screen', () => {
  it('a blank pane or the echo before the TUI is starting; the prompt box with its hints is ready', () => {
    assert.equal(opencode(pane('opencode-starting-blank.txt')).kind, 'starting');
    assert.equal(opencode(pane('opencode-before-tui-echo.txt')).kind, 'starting');
    const home = { kind: 'input', text: '', replacedOnSubmit: true };
    assert.deepEqual(opencode(pane('opencode-ready.txt')), home);
    assert.deepEqual(opencode(pane('opencode-ready-mcp-connected.txt')), home);
  });

  it('typed text is read within the box; the session view beside its sidebar has an empty box', () => {
    assert.deepEqual(opencode(pane('opencode-typed-unsubmitted.txt')), {
      kind: 'input',
      text: '[Leo Chat] typed but not submitted',
      replacedOnSubmit: true,
    });
    assert.deepEqual(opencode(pane('opencode-working.txt')), { kind: 'input', text: '' });
    assert.deepEqual(opencode(pane('opencode-session-typed.txt')), { kind: 'input', text: '[Leo Chat] two' });
  });

  it('the start screen, emptied by Enter, is the one a submit replaces; the session view it gives way to is not', () => {
    assert.deepEqual(opencode(pane('opencode-submitted.txt')), { kind: 'input', text: '', replacedOnSubmit: true });
    assert.deepEqual(opencode(pane('opencode-session-first-draw.txt')), { kind: 'input', text: '' });
  });

  it('the message just sent, drawn right above an empty box, is not text in the box', () => {
    const bar = '▀'.repeat(60);
    const frame = [
      '  ┃',
      '  ┃  [Leo Chat] hello',
      '  ┃',
      '  ┃',
      '  ┃',
      '  ┃',
      '  ┃  Build · gpt-test Scripted',
      `  ╹${bar}`,
    ];
    assert.deepEqual(opencode([...frame, '   ■■⬝⬝  esc interrupt   tab agents  ctrl+p commands'].join('\n')), {
      kind: 'input',
      text: '',
    });
  });
});
