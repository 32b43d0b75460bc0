// Issue 28 item 5: a failed task's output tail (a printed secret included) reached read-only dashboard tokens in
// /api/v1/state's recent_runs and the task_run_failed event, though the run log is owner-only. The attack: a task that
// prints a secret and fails, watched by a dashboard token's stream and state polls beside the operator's.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { SseClient } from '../helpers/sse-client.js';
import { until } from '../helpers/wait.js';
import { issueTokens, type Tokens } from './principals.js';
import { StateSnapshot } from '../../src/wire/fleet.js';
import { MessagePage } from '../../src/wire/message.js';

const SECRET = 'sk-live-4f9a2c7e1b8d';

describe("a failed task's output stays with its owner", () => {
  let t: TestDaemon;
  let tokens: Tokens;
  let dashboard: SseClient;

  before(async () => {
    t = await startTestDaemon({
      config: `templates:
  cat: { harness: shell, command: "exec cat" }
tasks:
  leaky:
    schedule: "0 0 1 1 *"
    harness: shell
    command: 'echo "deploying with API_KEY=${SECRET}"; echo "upstream refused" >&2; exit 7'
    prompt: deploy
    notify_on_fail: true
    owner: den
`,
    });
    assert.equal((await t.op('POST', '/api/v1/agents/spawn', { template: 'cat', name: 'den' })).status, 201);
    tokens = await issueTokens(t.tcp, t.daemon.paths, 'den');
    dashboard = await SseClient.open(t.tcp, '/api/v1/events', tokens.client);
    await dashboard.waitFor(1);
  });
  after(async () => {
    dashboard?.close();
    await t.stop();
  });

  it("dashboards get the reason; the card and the log in the owner's reach keep the output", async () => {
    const r = await t.op('POST', '/api/v1/tasks/leaky/run');
    assert.equal(r.status, 202, r.text);
    const runId = r.json.data.run_id as string;
    const failed = await until(
      'the dashboard to see the run fail',
      () => dashboard.events.find((e) => e.event === 'task_run_failed' && e.data.run?.id === runId),
      20_000,
      50,
    );
    assert.equal(failed.data.run.error, 'exit 7');
    assert.ok(!JSON.stringify(failed.data).includes(SECRET));

    for (const who of ['client', 'poster', 'device', 'operator'] as const) {
      const state = await t.as(tokens[who]).op('GET', '/api/v1/state');
      assert.equal(state.status, 200, state.text);
      const run = StateSnapshot.parse(state.json.data).recent_runs.find((x) => x.id === runId);
      assert.equal(run?.error, 'exit 7', who);
      assert.ok(!state.text.includes(SECRET), `${who}'s /api/v1/state holds the task's output`);
    }

    const card = await until(
      'the failure card',
      async () => {
        const thread = await t.get('/api/v1/chat/den/messages?limit=50', MessagePage);
        return thread.messages.find((m) => m.kind === 'task' && m.task === 'leaky');
      },
      10_000,
    );
    assert.ok(card.text.includes(SECRET), card.text);
    assert.match(card.text, /upstream refused/);
    const log = await t.op('GET', `/api/v1/tasks/leaky/runs/${runId}/log`);
    assert.equal(log.status, 200, log.text);
    assert.ok(log.text.includes(SECRET));
    assert.equal((await t.as(tokens.client).op('GET', `/api/v1/tasks/leaky/runs/${runId}/log`)).status, 403);
  });
});
