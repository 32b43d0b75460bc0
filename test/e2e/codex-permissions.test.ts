// Permission prompts with the real Codex TUI in Leo's tmux against the scripted Responses API: an escalated command
// raises Codex's PermissionRequest hook, which runs `leo hook permission-request`; the daemon posts the prompt into
// the thread and holds the hook until chat answers (allow / deny, after a person's pace), or Codex's own approval UI
// does.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import type { ManualClock } from '../../src/core/clock.js';
import { startHarnessAgent } from '../helpers/harness-agent.js';
import { request } from '../helpers/http.js';
import {
  functionCallOutput,
  userPrompts,
  type ReplyScript,
  type ResponsesServer,
} from '../helpers/responses-server.js';
import { until } from '../helpers/wait.js';

const AGENT = 'codex-perm';
/** A person reads the prompt before answering. */
const PERSON_PACE_MS = 5_500;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The escalated command each marker gets: outside the sandbox, so Codex must ask. */
const SCENARIOS = ['PERM-ALLOW', 'PERM-DENY', 'PERM-TERMINAL'] as const;
const callId = (marker: string) => `call_${marker.toLowerCase().replace('-', '_')}`;
const file = (marker: string) => `${marker.toLowerCase()}.txt`;

/** A prompt with a marker gets its command; the command's output (whatever it was) gets "<marker> over". */
const script: ReplyScript = (req) => {
  const prompts = userPrompts(req.body);
  const last = prompts.at(-1) ?? '';
  for (const marker of SCENARIOS) {
    if (!last.includes(marker)) continue;
    if (functionCallOutput(req.body, callId(marker)) !== undefined) return { text: `${marker} over` };
    return {
      functionCall: {
        name: 'exec_command',
        callId: callId(marker),
        arguments: {
          cmd: `touch ${file(marker)}`,
          sandbox_permissions: 'require_escalated',
          justification: `Create ${file(marker)}`,
        },
      },
    };
  }
  return undefined;
};

describe('codex permission prompts (real CLI)', () => {
  it(
    'allow and deny from chat at a person’s pace, and once in Codex’s own approval UI',
    { timeout: 180_000 },
    async (t) => {
      const a = await startHarnessAgent(t, { harness: 'codex', agent: AGENT, script });
      if (!a) return;
      const workspace = path.join(a.d.home, 'agents', AGENT);
      const answer = (id: string, body: unknown) =>
        request(a.d.tcp, 'POST', `/api/v1/chat/${AGENT}/messages/${id}/answer`, { token: a.token, body });
      const begin = async (marker: string) => {
        const seen = new Set((await a.thread()).map((m) => m.id));
        await a.delivered((await a.send(`${marker}: do the thing`)).id);
        return a.withPane(
          until(
            `the permission prompt for ${marker}`,
            async () =>
              (await a.thread()).find((x) => !seen.has(x.id) && x.kind === 'permission' && x.state === 'open'),
            60_000,
            200,
          ),
        );
      };
      const outputOf = (marker: string) =>
        a.withPane(
          until(
            `${marker}'s command output at the model`,
            () => {
              for (const r of (a.server as ResponsesServer).responseRequests()) {
                const out = functionCallOutput(r.body, callId(marker));
                if (out !== undefined) return out;
              }
              return undefined;
            },
            60_000,
            200,
          ),
        );

      const allow = await begin('PERM-ALLOW');
      // Codex's tool_name for a shell command is Bash, its justification the description.
      assert.deepEqual(
        { ...allow.permission, deadline: undefined },
        { tool: 'Bash', deadline: undefined, summary: 'touch perm-allow.txt (Create perm-allow.txt)' },
      );
      await sleep(PERSON_PACE_MS);
      // While Leo holds the hook Codex shows no dialog of its own: nothing to race in the terminal.
      assert.match(a.pane(), /Running hook/);
      assert.equal((await answer(allow.id, { values: ['allow'] })).status, 200);
      assert.match(await outputOf('PERM-ALLOW'), /Process exited with code 0/);
      assert.ok(fs.existsSync(path.join(workspace, file('PERM-ALLOW'))), 'the allowed command ran');

      const deny = await begin('PERM-DENY');
      await sleep(PERSON_PACE_MS);
      assert.equal((await answer(deny.id, { values: ['deny'], text: 'not now' })).status, 200);
      assert.match(await outputOf('PERM-DENY'), /Rejected\(\\"Denied from Leo Chat: not now\\"\)/);
      assert.equal(fs.existsSync(path.join(workspace, file('PERM-DENY'))), false);

      // Nobody answers in chat in time: the prompt expires, the hook ends without a decision, and Codex asks in its own
      // approval UI, where the person at the terminal approves.
      const term = await begin('PERM-TERMINAL');
      await sleep(PERSON_PACE_MS);
      (a.d.clock as ManualClock).advance(121_000);
      await a.withPane(
        until(
          'the prompt to expire',
          async () => (await a.thread()).find((m) => m.id === term.id && m.state === 'expired'),
          10_000,
          200,
        ),
      );
      await a.withPane(
        until(
          'Codex’s own approval dialog',
          () => !a.pane().includes('Running hook') && a.pane().includes('$ touch perm-terminal.txt'),
          20_000,
          200,
        ),
      );
      assert.match(a.pane(), /Would you like to run the following command\?/);
      await sleep(PERSON_PACE_MS);
      a.tmux('send-keys', '-t', `=leo-${AGENT}:`, 'Enter');
      assert.match(await outputOf('PERM-TERMINAL'), /Process exited with code 0/);
      assert.ok(fs.existsSync(path.join(workspace, file('PERM-TERMINAL'))), 'the command approved in the terminal ran');

      // Each turn ended with its text, captured as the reply to its message.
      const thread = await a.thread();
      for (const marker of SCENARIOS) {
        const sent = thread.find((m) => m.direction === 'in' && m.text.startsWith(marker));
        await a
          .withPane(
            until(
              `${marker}'s reply`,
              async () => (await a.thread()).find((m) => m.reply_to === sent?.id),
              20_000,
              200,
            ),
          )
          .then((reply) => assert.equal(reply.text, `${marker} over`));
      }
      const states = (await a.thread()).filter((m) => m.kind === 'permission').map((m) => [m.state, m.answer?.values]);
      assert.deepEqual(states, [
        ['answered', ['allow']],
        ['answered', ['deny']],
        ['expired', undefined],
      ]);
    },
  );

  it(
    'Esc in Codex while chat holds the prompt: the turn is interrupted and the prompt recorded as answered there',
    { timeout: 120_000 },
    async (t) => {
      const a = await startHarnessAgent(t, { harness: 'codex', agent: `${AGENT}-esc`, script });
      if (!a) return;
      await a.delivered((await a.send('PERM-ALLOW: do the thing')).id);
      const prompt = await a.withPane(
        until(
          'the permission prompt',
          async () => (await a.thread()).find((m) => m.kind === 'permission'),
          60_000,
          200,
        ),
      );
      await sleep(PERSON_PACE_MS);
      a.tmux('send-keys', '-t', `=leo-${AGENT}-esc:`, 'Escape');
      // Codex ends the hook as it interrupts the turn: the hook's hang-up settles the prompt.
      const settled = await a.withPane(
        until(
          'the prompt to settle',
          async () => (await a.thread()).find((m) => m.id === prompt.id && m.state !== 'open'),
          15_000,
          200,
        ),
      );
      assert.deepEqual([settled.state, settled.answer], ['answered', { values: ['terminal'], text: '' }]);
      assert.match(a.pane(), /Conversation interrupted/);
      assert.equal(fs.existsSync(path.join(a.d.home, 'agents', `${AGENT}-esc`, file('PERM-ALLOW'))), false);
    },
  );
});
