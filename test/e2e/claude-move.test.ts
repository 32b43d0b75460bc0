// A real Claude Code agent moved from a hub to a host (issue 32, "Done when" 1): both real daemons on loopback, each
// with a Claude config like a real user's (onboarding done, the agent's workspace never seen); one turn in which the
// scripted model says a secret word, a move through the hub's route, then the next message sent to the agent's old
// address: it is forwarded, Claude resumes on the host with the earlier turn in its request, and the hub shows the
// whole thread for sage@box, the workspace as it was, and a dormant record in place of the old agent.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { Agent } from '../../src/wire/fleet.js';
import { MessagePage } from '../../src/wire/message.js';
import { MoveOperation } from '../../src/wire/move.js';
import { AnthropicServer } from '../helpers/anthropic-server.js';
import { agentViews } from '../helpers/agent-views.js';
import { claudeSandbox, findClaude, type ClaudeSandbox } from '../helpers/claude-cli.js';
import { paneText, startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { pairHost } from '../helpers/pair-host.js';
import { harnessTemplateConfig } from '../helpers/pinned-cli.js';
import { secretWordConversation } from '../helpers/secret-word.js';
import { alive, until } from '../helpers/wait.js';
import { git, workspaceSnapshot } from '../helpers/workspace-snapshot.js';

const {
  first: FIRST,
  second: SECOND,
  picked: PICKED,
  remembered: REMEMBERED,
  script,
  secondTurn,
} = secretWordConversation('QUINCE-4471');

describe('a real Claude agent moved from a hub to a host', () => {
  it(
    'answers its old address from the host with its conversation, thread and workspace',
    { timeout: 180_000 },
    async (t) => {
      const claude = await findClaude();
      if ('missing' in claude) return t.skip(claude.missing);
      const api = await AnthropicServer.start({ script });
      const machine = async (): Promise<{ d: TestDaemon; sandbox: ClaudeSandbox }> => {
        const sandbox = claudeSandbox({ baseUrl: api.url });
        sandbox.seedAsUser();
        const config = harnessTemplateConfig({
          harness: 'claude',
          bin: claude.bin,
          env: sandbox.env,
          model: 'claude-sonnet-4-5',
          environment: 'anthropic',
          workspace: '~/work/sage',
        });
        return { d: await startTestDaemon({ config }), sandbox };
      };
      const [hub, box] = await Promise.all([machine(), machine()]);
      const pane = (m: { d: TestDaemon }) => paneText(m.d.home, 'sage');
      t.after(async () => {
        for (const m of [hub, box]) {
          const pid = agentViews(m.d, 'sage', m.d.daemon.operatorToken).panePid();
          await m.d.stop();
          if (pid > 0) await until('claude to exit', () => !alive(pid), 10_000).catch(() => undefined);
          m.sandbox.cleanup();
        }
        await api.close();
      });
      const texts = async (agent: string) =>
        (await hub.d.get(`/api/v1/chat/${agent}/messages?limit=200`, MessagePage)).messages.filter(
          (m) => m.kind === 'text',
        );

      const ws = path.join(hub.d.home, 'work', 'sage');
      fs.mkdirSync(ws, { recursive: true });
      git(ws, 'init', '-q', '-b', 'main');
      fs.writeFileSync(path.join(ws, 'README.md'), 'sage\n');
      git(ws, 'add', '.');
      git(ws, 'commit', '-q', '-m', 'first');
      fs.appendFileSync(path.join(ws, 'README.md'), 'an uncommitted edit\n');
      fs.writeFileSync(path.join(ws, 'notes.txt'), 'untracked\n');
      const spawned = await hub.d.op('POST', '/api/v1/agents/spawn', { template: 'coder', name: 'sage' });
      assert.equal(spawned.status, 201, spawned.text);
      await Promise.all([
        pairHost(hub.d, box.d, 'box'),
        until('claude to show its prompt', () => pane(hub).includes('for shortcuts'), 30_000),
      ]);

      const first = await hub.d.op('POST', '/api/v1/chat/sage/messages', { text: FIRST });
      assert.equal(first.status, 201, first.text);
      await until('the first reply', async () => (await texts('sage')).some((m) => m.text === PICKED), 30_000);
      const workspace = workspaceSnapshot(ws);

      const moved = await hub.d.op('POST', '/api/v1/agents/sage/move', { to: 'box' });
      assert.equal(moved.status, 202, moved.text);
      const id = MoveOperation.parse(moved.json.data).id;
      const done = await until(
        'the move settled',
        async () => {
          const op = await hub.d.get(`/api/v1/moves/${id}`, MoveOperation);
          return (op.step === 'done' || (op.step === 'failed' && op.undo.length === 0)) && op;
        },
        60_000,
      );
      assert.equal(done.step, 'done', JSON.stringify(done.failure));
      assert.deepEqual(workspaceSnapshot(path.join(box.d.home, 'work', 'sage')), workspace, 'the workspace as it was');
      const dormant = await hub.d.get('/api/v1/agents/sage', Agent);
      assert.deepEqual([dormant.status, dormant.moved_to], ['stopped', 'box']);

      const sent = await hub.d.op('POST', '/api/v1/chat/sage/messages', { text: SECOND });
      assert.equal(sent.status, 201, sent.text);
      assert.equal(sent.json.data.agent, 'sage@box', 'the old address forwards');
      await until(
        'the reply from box',
        async () => (await texts('sage@box')).some((m) => m.text === REMEMBERED),
        60_000,
      ).catch((err) => {
        throw new Error(`${(err as Error).message}; box pane:\n${pane(box)}`);
      });
      const turn = secondTurn(api);
      assert.ok(JSON.stringify(turn.body.messages).includes(FIRST), 'the first prompt is in the resumed request');
      assert.deepEqual(
        (await texts('sage@box')).map((m) => m.text),
        [FIRST, PICKED, SECOND, REMEMBERED],
        'the whole history on the hub',
      );
      assert.ok(!pane(hub).includes(SECOND), 'nothing typed into the old pane');
    },
  );
});
