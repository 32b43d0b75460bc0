// opencode permission prompts end to end (issue 18): the real opencode TUI in Leo's tmux, whose user asks to approve
// shell commands in their own opencode.json (`permission.bash: "ask"`). Leo's plugin sees each `permission.asked`,
// the daemon posts a permission prompt into the thread, and the answer — from chat at a person's pace, or in
// opencode's own dialog — decides what opencode does with the command.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ManualClock } from '../../src/core/clock.js';
import type { ChatMessage } from '../helpers/agent-views.js';
import { startHarnessAgent } from '../helpers/harness-agent.js';
import { request } from '../helpers/http.js';
import { lastUserText, type RecordedRequest, type ScriptedReply } from '../helpers/openai-server.js';
import { until } from '../helpers/wait.js';

const AGENT = 'oc-perm';
const MARKERS = ['PERM-ALLOW', 'PERM-DENY', 'PERM-TUI', 'PERM-LATE'] as const;
type Marker = (typeof MARKERS)[number];
const fileOf = (marker: Marker) => `${marker.toLowerCase()}.txt`;
const callOf = (marker: Marker) => `call_${marker.toLowerCase().replace('-', '_')}`;
/** A person reads the prompt on their phone before they answer. */
const PERSON_PACE_MS = 5_500;

const agentTurn = (req: RecordedRequest) => Array.isArray(req.body?.tools) && req.body.tools.length > 0;

/** A message naming a scenario gets a `touch` of its file; the command's result gets "<marker> over". */
function script(req: RecordedRequest): ScriptedReply | undefined {
  if (!agentTurn(req)) return { text: 'A title' };
  const last = (req.body.messages as any[]).at(-1);
  const prompt = lastUserText(req.body) ?? '';
  const marker = MARKERS.find((m) => prompt.includes(m));
  if (!marker) return undefined;
  if (last?.role === 'tool') return { text: `${marker} over` };
  return {
    text: 'Running it.',
    toolCalls: [
      {
        id: callOf(marker),
        name: 'bash',
        arguments: { command: `touch ${fileOf(marker)}`, description: `Create ${fileOf(marker)}` },
      },
    ],
  };
}

describe('opencode permission prompts (real CLI)', () => {
  it(
    'allow and deny from chat at a person pace, an answer in opencode own dialog, a late Allow past chat wait',
    { timeout: 240_000 },
    async (t) => {
      const started = Date.now();
      const a = await startHarnessAgent(t, {
        harness: 'opencode',
        agent: AGENT,
        script,
        userConfig: { permission: { bash: 'ask' } },
        waitForReady: false,
      });
      if (!a) return;
      // A first start with a plugin waits for opencode's own dependency install (docs/harnesses/opencode.md).
      await a.ready(150_000);
      const agent = await request(a.d.tcp, 'GET', `/api/v1/agents/${AGENT}`, { token: a.token });
      const workspace: string = agent.json.data.workspace;
      const message = async (id: string) => (await a.thread()).find((x) => x.id === id);
      const answer = (id: string, body: unknown) =>
        request(a.d.tcp, 'POST', `/api/v1/chat/${AGENT}/messages/${id}/answer`, { token: a.token, body });
      const begin = async (marker: Marker): Promise<ChatMessage> => {
        const seen = new Set((await a.thread()).map((m) => m.id));
        const m = await a.send(`${marker}: make the file`);
        await a.withPane(a.delivered(m.id));
        return a.withPane(
          until(
            `the permission prompt for ${marker}`,
            async () =>
              (await a.thread()).find((x) => !seen.has(x.id) && x.kind === 'permission' && x.state === 'open'),
            30_000,
            200,
          ),
        );
      };
      /** The tool message opencode sends back to the model for a scenario's command, once it has one. */
      const resultOf = async (marker: Marker): Promise<string> => {
        const r = await a.withPane(
          until(
            `the ${marker} command's result at the model`,
            () =>
              (a.server as any)
                .completionRequests()
                .map((x: RecordedRequest) =>
                  (x.body.messages as any[]).find((m) => m.role === 'tool' && m.tool_call_id === callOf(marker)),
                )
                .find(Boolean),
            30_000,
            250,
          ),
        );
        return typeof r.content === 'string' ? r.content : JSON.stringify(r.content);
      };
      const sessions = path.join(a.d.home, 'state', 'agents', AGENT, 'opencode-sessions');
      const failedCall = (id: string) =>
        fs.existsSync(sessions) &&
        fs
          .readdirSync(sessions)
          .filter((f) => f.endsWith('.jsonl'))
          .flatMap((f) => fs.readFileSync(path.join(sessions, f), 'utf8').split('\n').filter(Boolean))
          .map((line) => JSON.parse(line).entry)
          .some((e) => e.kind === 'tool_result' && e.toolUseId === id && e.isError === true);
      const settled = (id: string) =>
        until(
          `message ${id} to settle`,
          async () => {
            const m = await message(id);
            return m && m.state !== 'open' ? m : undefined;
          },
          15_000,
          200,
        );

      // Allow from chat: opencode's dialog closes and the command runs.
      const allow = await begin('PERM-ALLOW');
      assert.deepEqual(
        { ...allow.permission, deadline: undefined },
        { tool: 'bash', deadline: undefined, summary: 'touch perm-allow.txt', full_input: 'touch perm-allow.txt' },
      );
      await a.withPane(until('opencode own dialog', () => a.pane().includes('Permission required'), 10_000));
      await sleep(PERSON_PACE_MS);
      assert.equal((await answer(allow.id, { values: ['allow'] })).status, 200);
      await a.withPane(until('the allowed file', () => fs.existsSync(path.join(workspace, 'perm-allow.txt')), 15_000));
      await resultOf('PERM-ALLOW');
      await a.withPane(until('the allow turn over', () => a.pane().includes('PERM-ALLOW over'), 20_000));

      // Deny from chat: the command is rejected and nothing runs; opencode ends the turn on a rejection.
      // A chat message sent meanwhile waits behind the open prompt: typed into opencode's dialog, its Enter would allow.
      const deny = await begin('PERM-DENY');
      const meanwhile = await a.send('HELD-MSG: sent while the prompt is open');
      await sleep(PERSON_PACE_MS);
      assert.equal((await message(meanwhile.id))?.state, 'pending');
      assert.equal((await message(deny.id))?.state, 'open');
      assert.equal(fs.existsSync(path.join(workspace, 'perm-deny.txt')), false);
      assert.equal((await answer(deny.id, { values: ['deny'] })).status, 200);
      // opencode's TUI shows a rejected command without a word; the transcript Leo's plugin writes records it failed.
      await a.withPane(until('the rejected call in the transcript', () => failedCall(callOf('PERM-DENY')), 20_000));
      assert.equal(fs.existsSync(path.join(workspace, 'perm-deny.txt')), false);
      assert.equal((await message(deny.id))?.state, 'answered');
      await a.withPane(
        until('the held message delivered', async () => (await message(meanwhile.id))?.state === 'delivered', 30_000),
      );
      await a.withPane(
        until('its turn answered', async () => (await a.thread()).some((m) => m.reply_to === meanwhile.id), 30_000),
      );

      // Answered in opencode's own dialog (Enter takes its default, "Allow once"): the command runs and the prompt in
      // chat records the terminal's answer.
      const tui = await begin('PERM-TUI');
      await a.withPane(until('opencode own dialog', () => a.pane().includes('Permission required'), 10_000));
      await sleep(PERSON_PACE_MS);
      a.tmux('send-keys', '-t', `=leo-${AGENT}:`, 'Enter');
      const byTerminal = await a.withPane(settled(tui.id));
      assert.deepEqual([byTerminal.state, byTerminal.answer], ['answered', { values: ['terminal'], text: '' }]);
      await a.withPane(
        until('the TUI-allowed file', () => fs.existsSync(path.join(workspace, 'perm-tui.txt')), 15_000),
      );
      // An answer from chat after the terminal's is refused: the tool call has moved on.
      assert.equal((await answer(tui.id, { values: ['deny'] })).status, 409);

      // Past chat's wait (chat.permission_timeout): opencode's dialog is still up, the card says the agent waits in
      // its terminal, and Allow from chat minutes later still runs the command (issue 27 item 3).
      const late = await begin('PERM-LATE');
      await a.withPane(until('opencode own dialog', () => a.pane().includes('Permission required'), 10_000));
      (a.d.clock as ManualClock).advance(120_000);
      const waiting = await a.withPane(
        until(
          'the card to say the agent waits in its terminal',
          async () => ((await message(late.id))?.permission?.terminal_waiting ? message(late.id) : undefined),
          10_000,
          200,
        ),
      );
      assert.equal(waiting!.state, 'expired');
      await sleep(PERSON_PACE_MS);
      assert.equal((await answer(late.id, { values: ['allow'] })).status, 200);
      await a.withPane(
        until('the late-allowed file', () => fs.existsSync(path.join(workspace, 'perm-late.txt')), 15_000),
      );
      assert.deepEqual((await message(late.id))?.answer, { values: ['allow'], text: '' });
      t.diagnostic(`ran in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    },
  );
});
