// current_action.detail over real panes of the pinned CLIs (Claude Code 2.1.328, Codex 0.171.0, opencode 1.18.33),
// captured as the sweep captures them (`capture-pane -p -J`, a 200×50 pane spawned through Leo) while each ran a
// scripted turn: a prompt from chat, a shell tool call, a reply. claude-* were taken with test/helpers/claude-cli.ts;
// codex-ready/working/reply-done, opencode-ready/working and claude-trust-dialog come from the clis rig (its
// test/fixtures/panes/README.md), the other codex-* and opencode-* from that rig driving a turn with a tool call.
// The detail must be what the agent is doing, never the harness's footer, status line, spinner or sidebar.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { Harness } from '../../src/config/schema.js';
import { withoutChrome } from '../../src/harnesses/chrome.js';
import { adapterOf } from '../../src/harnesses/index.js';
import { lastPaneLine } from '../../src/observe/pane-line.js';

/** test/fixtures/panes, from dist/test/observe or test/observe alike. */
function pane(name: string): string {
  const here = path.dirname(fileURLToPath(import.meta.url));
  for (const up of ['../..', '../../..']) {
    const p = path.resolve(here, up, 'test', 'fixtures', 'panes', name);
    if (fs.existsSync(p)) return fs.readFileSync(p, 'utf8');
  }
  throw new Error(`fixture ${name} not found`);
}

const REPLY =
  'All twelve tests pass. The parser handles every recorded case, and the fixture for the empty pane is in place now.';

/** Fixture → the detail it must give; null where the pane shows nothing of the agent's own yet. */
const EXPECTED: Record<string, string | null> = {
  'claude-ready.txt': null,
  'claude-thinking.txt': null,
  'claude-tool-running.txt': '⎿  $ sleep 8; echo all 12 tests passed (3s)',
  'claude-tool-done.txt': 'Ran 1 shell command',
  'claude-reply-done.txt': `● ${REPLY}`,
  'claude-permission-prompt.txt': 'Do you want to proceed?',
  'claude-trust-dialog.txt': 'Security guide',
  'codex-ready.txt': null,
  'codex-working.txt': null,
  'codex-reply-streaming.txt': '• Let me run t',
  'codex-tool-running.txt': '• Let me run the test suite first.',
  'codex-tool-output.txt': '└ all 12 tests passed',
  'codex-reply-done.txt': '• Scripted reply.',
  'opencode-ready.txt': null,
  'opencode-working.txt': '[Leo Chat] typed but not submitted',
  'opencode-tool-running.txt': '⠼ sleep 8; echo all 12 tests passed',
  'opencode-reply-streaming.txt': 'All twelve tests pass. The parser handle',
  'opencode-turn-done.txt': REPLY,
};

/** What each harness draws on every screen: none of it may ever be the detail. */
const FURNITURE = [
  /for shortcuts/,
  /manual mode on/,
  /esc to interrupt|esc interrupt/,
  /^[·✢✳✶✻✽] [\p{L}-]+…/u,
  /Churned for|Cooked for|Worked for/,
  /focus-events/,
  /Ask Codex to do anything|Ask anything/,
  /ctrl\+p commands|← for agents/,
  /Claude Code v|OpenAI Codex|OpenCode \d/,
  /^(Context|LSP|MCP)$|tokens$|spent$|Connected$/,
  /^▣/,
  /Esc to cancel|Enter to confirm/,
  /agents\/(explorer|cap)$|\/workspace$/,
];

describe('the pane line skips harness furniture', () => {
  for (const [file, expected] of Object.entries(EXPECTED)) {
    const harness = file.split('-')[0] as Harness;
    it(`${file}: ${JSON.stringify(expected)}`, () => {
      const detail = lastPaneLine(pane(file), adapterOf(harness)?.chrome);
      assert.equal(detail, expected);
      for (const f of FURNITURE) if (detail !== null) assert.doesNotMatch(detail, f);
    });
  }

  it('no furniture line of any fixture survives, whichever line is last', () => {
    for (const file of Object.keys(EXPECTED)) {
      const harness = file.split('-')[0] as Harness;
      for (const line of withoutChrome(adapterOf(harness)?.chrome, pane(file).split('\n')))
        for (const f of FURNITURE) assert.doesNotMatch(line, f, `${file}: ${JSON.stringify(line)}`);
    }
  });

  it('a harness without known furniture, and none given, keep the plain last line', () => {
    const text = 'step 1 done\n────────\n  ⏸ manual mode on · ? for shortcuts\n';
    assert.equal(lastPaneLine(text, adapterOf('shell')?.chrome), '⏸ manual mode on · ? for shortcuts');
    assert.equal(lastPaneLine(text), '⏸ manual mode on · ? for shortcuts');
  });

  it('a spinner whose verb is hyphenated is furniture too', () => {
    const claude =
      '● The plan: probe, script, stream.\n\n✽ Fiddle-faddling… (3s · ↓ 12 tokens)\n\n✽ Fiddle-faddling…\n';
    assert.equal(lastPaneLine(claude, adapterOf('claude')?.chrome), '● The plan: probe, script, stream.');
  });

  it('a line typed into the input box is the user’s, not the agent’s', () => {
    const claude = 'Compiling the parser\n────\n❯ fix the tests please\n────\n  ? for shortcuts\n';
    assert.equal(lastPaneLine(claude, adapterOf('claude')?.chrome), 'Compiling the parser');
    const codex = '• Ran npm test\n  └ 3 passed\n\n› also update the docs\n\n  gpt-5 default · ~/work\n';
    assert.equal(lastPaneLine(codex, adapterOf('codex')?.chrome), '└ 3 passed');
  });
});
