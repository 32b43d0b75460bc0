// Leo's instructions reach every harness through its own mechanism, from one text: Claude's system-prompt file,
// Codex's developer_instructions override, opencode's `instructions` list, a shell script's LEO_INSTRUCTIONS.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { planLaunch } from '../../src/harnesses/launch.js';
import { planHeadless } from '../../src/harnesses/headless.js';
import { HARNESSES as ADAPTERS } from '../../src/harnesses/index.js';
import { leoInstructions } from '../../src/harnesses/instructions.js';
import { HARNESSES } from '../../src/config/schema.js';
import { chatTools } from '../../src/mcp/chat-tools.js';
import { AGENT_DIR, fileAt, makeCtx } from './fixture.js';

const FILE = `${AGENT_DIR}/leo-instructions.md`;
const TOOLS = Object.keys(chatTools(null as never, null as never, null as never, null as never));

function codexOverride(argv: string[], key: string): string | undefined {
  const i = argv.findIndex((a, j) => argv[j - 1] === '-c' && a.startsWith(`${key}=`));
  return i < 0 ? undefined : JSON.parse(argv[i]!.slice(key.length + 1));
}

describe("Leo's instructions", () => {
  it('name every Leo Chat tool and both message prefixes', () => {
    const text = leoInstructions('claude', {});
    for (const tool of TOOLS) assert.ok(text.includes(tool), `${tool} missing`);
    assert.ok(text.includes('`[Leo Chat] `') && text.includes('`[Leo Chat from client:<name>] `'));
  });

  it('tell a hooked harness its reply is captured, and any other to answer with leo_chat_post', () => {
    assert.match(leoInstructions('claude', {}), /Leo posts your final answer/);
    for (const h of HARNESSES.filter((h) => !ADAPTERS[h].repliesCaptured))
      assert.match(leoInstructions(h, {}), /Answer every \[Leo Chat\] message with the leo_chat_post tool/);
    assert.match(leoInstructions('claude', { task: 'nightly' }), /scheduled task "nightly"[\s\S]*leo_chat_post/);
  });

  it('are a private file every session names in LEO_INSTRUCTIONS, which a named environment cannot change', () => {
    for (const h of HARNESSES) {
      const ctx = makeCtx({ command: 'bash run.sh', env: { LEO_INSTRUCTIONS: '/tmp/theirs' } });
      const plan = planLaunch(h, ctx);
      assert.equal(plan.env.LEO_INSTRUCTIONS, FILE, h);
      const file = fileAt(plan, FILE);
      assert.equal(file.mode, 0o600);
      assert.equal(file.content, leoInstructions(h, ctx));
    }
  });

  it("reach each CLI through its own mechanism, nothing typed and nothing in the user's files", () => {
    assert.deepEqual(planLaunch('claude', makeCtx()).argv.slice(-2), ['--append-system-prompt-file', FILE]);
    assert.equal(
      codexOverride(planLaunch('codex', makeCtx()).argv, 'developer_instructions'),
      leoInstructions('codex', {}),
    );
    const oc = planLaunch('opencode', makeCtx());
    assert.deepEqual(JSON.parse(fileAt(oc, oc.env.OPENCODE_CONFIG!).content).instructions, [FILE]);
  });

  it("a task run gets the task's text, in its own run folder", () => {
    const run = { prompt: 'do it', task: 'nightly', runId: 'r1' };
    for (const h of HARNESSES) {
      const ctx = { ...makeCtx({ command: 'bash run.sh' }), ...run };
      const plan = planHeadless(h, ctx);
      assert.equal(fileAt(plan, FILE).content, leoInstructions(h, { task: 'nightly' }), h);
      assert.equal(plan.files.filter((f) => f.path === FILE).length, 1);
    }
    const codex = planHeadless('codex', { ...makeCtx(), ...run }).argv;
    assert.equal(codexOverride(codex, 'developer_instructions'), leoInstructions('codex', { task: 'nightly' }));
    assert.ok(planHeadless('claude', { ...makeCtx(), ...run }).argv.includes('--append-system-prompt-file'));
  });
});
