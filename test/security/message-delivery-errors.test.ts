// Issue 20 item 7: a message that could not be typed into its agent answered 500 on the agent→agent and operator
// message routes. Each failure is now an envelope with its own status and code; these are the ones a real daemon
// meets with a real tmux pane (the input-box timeout, which takes five minutes, is in test/agents/message-errors).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { request } from '../helpers/http.js';
import { agentSessionVariable } from './principals.js';

const CONFIG = `
templates:
  cat: { harness: shell, command: "exec cat" }
  # Raw mode: Enter is echoed as a bare carriage return, so the typed text never leaves the cursor's line.
  stuck: { harness: shell, command: "stty raw; exec cat" }
  # Ends its own tmux session on the first byte it is typed: the agent is gone while Leo is still typing.
  quitter:
    harness: shell
    command: 'stty raw -echo; head -c1 >/dev/null; tmux -S "$LEO_HOME/state/tmux.sock" kill-session -t "=leo-$LEO_AGENT"'
`;

describe('message routes answer a failed delivery with the envelope, never a 500', () => {
  let t: TestDaemon;
  let agentToken: string;
  const spawn = async (template: string, name: string) =>
    assert.equal((await t.op('POST', '/api/v1/agents/spawn', { template, name })).status, 201);
  /** The same text through both routes: another agent's message and the operator's. */
  const bothRoutes = async (to: string) => [
    await request(t.tcp, 'POST', '/api/agent/sender/message', { token: agentToken, body: { to, text: 'hello' } }),
    await t.op('POST', `/api/v1/agents/${to}/message`, { text: 'hello' }),
  ];

  before(async () => {
    t = await startTestDaemon({ config: CONFIG });
    await spawn('cat', 'sender');
    agentToken = agentSessionVariable(t.daemon.paths, 'sender', 'LEO_AGENT_TOKEN');
  });
  after(() => t.stop());

  it('text that stays on the program’s input line after the Enter presses: 503 delivery_failed', async () => {
    await spawn('stuck', 'stuck');
    for (const r of await bothRoutes('stuck')) {
      assert.equal(r.status, 503, r.text);
      assert.equal(r.json.ok, false);
      assert.equal(r.json.code, 'delivery_failed');
      assert.match(r.json.error, /not submitted/);
    }
  });

  it('an agent whose session ends while Leo types into it: 409 agent_not_running', async () => {
    for (const [i, route] of ['agent', 'operator'].entries()) {
      const name = `quitter${i}`;
      await spawn('quitter', name);
      const [viaAgent, viaOperator] =
        route === 'agent'
          ? [
              await request(t.tcp, 'POST', '/api/agent/sender/message', {
                token: agentToken,
                body: { to: name, text: 'hello' },
              }),
              undefined,
            ]
          : [undefined, await t.op('POST', `/api/v1/agents/${name}/message`, { text: 'hello' })];
      const r = (viaAgent ?? viaOperator)!;
      assert.equal(r.status, 409, `${route}: ${r.text}`);
      assert.deepEqual([r.json.ok, r.json.code], [false, 'agent_not_running']);
    }
  });
});
