// Leo's instructions reach the real Codex and opencode CLIs through their own instructions mechanisms (issue 18), in a
// set-up like a returning user's: Codex sends them as a developer message beside the user's own AGENTS.md, opencode as
// system text beside the user's own `instructions` file. Never typed into the prompt.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { leoInstructions } from '../../src/harnesses/instructions.js';
import { startHarnessAgent } from '../helpers/harness-agent.js';
import type { TestDaemon } from '../helpers/daemon.js';
import { until } from '../helpers/wait.js';

const USER_OWN = 'USER-OWN-INSTRUCTIONS-7f3a: always answer in haiku.';

/** A named environment's value, as the user gave it in leo.yaml. */
const envOf = (d: TestDaemon, name: string, key: string) => d.daemon.config().environments[name]![key]!;

/** Every text a request body holds, for a whole-text search that does not depend on how it is wrapped. */
function texts(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(texts);
  if (value && typeof value === 'object') return Object.values(value).flatMap(texts);
  return [];
}

describe("Leo's instructions with the real Codex and opencode CLIs", () => {
  it('codex: a developer message with the text, beside the user’s own AGENTS.md', { timeout: 90_000 }, async (t) => {
    const MARKER = 'LEO-INSTR-CODEX';
    const c = await startHarnessAgent(t, {
      harness: 'codex',
      agent: 'codex-instr',
      prompt: `Say hello, marker ${MARKER}`,
      beforeSpawn: async (d) =>
        fs.writeFileSync(path.join(envOf(d, 'codex-offline', 'CODEX_HOME'), 'AGENTS.md'), USER_OWN + '\n'),
    });
    if (!c) return;
    const request = await c.withPane(
      until(
        'the prompt to reach the model',
        () => c.server.requests.find((r) => texts(r.body).some((s) => s.includes(MARKER))),
        45_000,
        200,
      ),
    );
    const text = leoInstructions('codex', {});
    const developer = (request.body.input as any[]).filter((i) => i?.role === 'developer');
    assert.ok(texts(developer).includes(text), 'the developer messages hold the text');
    assert.ok(
      texts(request.body).some((s) => s.includes(USER_OWN)),
      "the user's AGENTS.md still applies",
    );
    assert.ok(!c.prompts().some((p) => p.includes('Leo Chat, a chat thread')), 'not typed');
  });

  it('opencode: system text from Leo’s instructions file, beside the user’s own', { timeout: 90_000 }, async (t) => {
    const MARKER = 'LEO-INSTR-OPENCODE';
    const c = await startHarnessAgent(t, {
      harness: 'opencode',
      agent: 'oc-instr',
      prompt: `Say hello, marker ${MARKER}`,
      // Its first launch in a fresh data folder can take a while to draw on a busy machine; waited for below.
      waitForReady: false,
      beforeSpawn: async (d) => {
        const dir = path.join(envOf(d, 'opencode-offline', 'XDG_CONFIG_HOME'), 'opencode');
        const own = path.join(dir, 'my-rules.md');
        fs.writeFileSync(own, USER_OWN + '\n');
        const file = path.join(dir, 'opencode.json');
        const config = JSON.parse(fs.readFileSync(file, 'utf8'));
        fs.writeFileSync(file, JSON.stringify({ ...config, instructions: [own] }, null, 2));
      },
    });
    if (!c) return;
    await c.ready(60_000);
    const request = await c.withPane(
      until(
        'the prompt to reach the model',
        // The agent's turn offers tools; opencode's title request sends the prompt too, without Leo's instructions.
        () =>
          c.server.requests.find(
            (r) => r.body?.tools?.length && texts(r.body.messages).some((s) => s.includes(MARKER)),
          ),
        45_000,
        200,
      ),
    );
    const system = texts((request.body.messages as any[]).filter((m) => m?.role === 'system')).join('\n');
    assert.ok(system.includes(leoInstructions('opencode', {}).trim()), "the system text holds Leo's");
    assert.ok(system.includes(USER_OWN), "the user's own instructions still apply");
    assert.ok(!c.prompts().some((p) => p.includes('Leo Chat, a chat thread')), 'not typed');
  });
});
