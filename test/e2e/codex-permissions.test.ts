// Permission prompts with the real Codex TUI in Leo's tmux against the scripted Responses API: an escalated command
// raises Codex's PermissionRequest hook, which runs `leo hook permission-request`; the daemon posts the prompt into
// the thread and returns the hook at once, because Codex draws its own approval dialog only after it. The prompt and
// the dialog race (issue 27): an answer from chat is pressed into the dialog, one in the terminal closes the prompt.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
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
    'allow and deny from chat at a person’s pace into Codex’s dialog, and an answer in the terminal first',
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

      const dialogUp = (marker: string) =>
        a.withPane(
          until(
            `Codex’s own approval dialog for ${marker}`,
            () => a.pane().includes(`$ touch ${file(marker)}`) && /Would you like to run/.test(a.pane()),
            20_000,
            200,
          ),
        );
      const settled = (id: string) =>
        a.withPane(
          until(
            `prompt ${id} to settle`,
            async () => (await a.thread()).find((m) => m.id === id && m.state !== 'open'),
            15_000,
            200,
          ),
        );

      // The hook returns at once: Codex's own dialog is up beside the open prompt, and an answer from chat is pressed
      // into it.
      const allow = await begin('PERM-ALLOW');
      // Codex's tool_name for a shell command is Bash, its justification the description.
      assert.deepEqual(
        { ...allow.permission, deadline: undefined },
        {
          tool: 'Bash',
          deadline: undefined,
          summary: 'touch perm-allow.txt (Create perm-allow.txt)',
          full_input: 'touch perm-allow.txt',
        },
      );
      await dialogUp('PERM-ALLOW');
      if (process.env.LEO_CAPTURE_PANES) fs.writeFileSync(process.env.LEO_CAPTURE_PANES, a.pane());
      await sleep(PERSON_PACE_MS);
      assert.equal((await a.thread()).find((m) => m.id === allow.id)?.state, 'open', 'the prompt races the dialog');
      const allowed = await answer(allow.id, { values: ['allow'] });
      assert.equal(allowed.status, 200, allowed.text);
      assert.match(await outputOf('PERM-ALLOW'), /Process exited with code 0/);
      assert.ok(fs.existsSync(path.join(workspace, file('PERM-ALLOW'))), 'the allowed command ran');
      assert.doesNotMatch(a.pane(), /Would you like to run/, 'Codex’s dialog closed');

      const deny = await begin('PERM-DENY');
      await dialogUp('PERM-DENY');
      await sleep(PERSON_PACE_MS);
      assert.equal((await answer(deny.id, { values: ['deny'], text: 'not now' })).status, 200);
      await a.withPane(until('Codex’s dialog to close', () => !/Would you like to run/.test(a.pane()), 10_000, 200));
      await sleep(2_000);
      assert.equal(fs.existsSync(path.join(workspace, file('PERM-DENY'))), false);

      // The person at the terminal answers first: the prompt closes as answered there, and chat's answer is too late.
      const term = await begin('PERM-TERMINAL');
      await dialogUp('PERM-TERMINAL');
      await sleep(PERSON_PACE_MS);
      a.tmux('send-keys', '-t', `=leo-${AGENT}:`, 'Enter');
      assert.match(await outputOf('PERM-TERMINAL'), /Process exited with code 0/);
      assert.ok(fs.existsSync(path.join(workspace, file('PERM-TERMINAL'))), 'the command approved in the terminal ran');
      const byTerminal = await settled(term.id);
      assert.deepEqual([byTerminal.state, byTerminal.answer], ['answered', { values: ['terminal'], text: '' }]);
      const late = await answer(term.id, { values: ['allow'] });
      assert.deepEqual([late.status, late.json.code], [409, 'answered_in_terminal']);

      // Each turn ended with its text, captured as the reply to its message.
      const thread = await a.thread();
      for (const marker of ['PERM-ALLOW', 'PERM-TERMINAL']) {
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
        ['answered', ['terminal']],
      ]);
    },
  );

  it(
    'Esc in Codex’s dialog while the prompt is open: the turn is interrupted and the prompt recorded as answered there',
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
      // The dialog leaves the terminal as Codex interrupts the turn: that settles the prompt.
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
