// The live terminal's API (issue 17) against a real daemon and a real tmux agent: a shell agent prints coloured text,
// the snapshot and the stream carry it with its colours, a change reaches a watcher, the key bar's keys reach the
// pane, and who may watch or type is the owner alone.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { issueTokens, type Tokens } from '../security/principals.js';
import { paneText, startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { SseClient } from '../helpers/sse-client.js';
import { until } from '../helpers/wait.js';
import type { ManualClock } from '../../src/core/clock.js';

const CONFIG = `templates:
  cat: { harness: shell, command: "exec cat" }
  colours: { harness: shell, command: "printf '\\\\033[31mred alert\\\\033[0m plain\\\\n'; exec cat" }
`;

describe('the live terminal API', () => {
  let t: TestDaemon;
  let tokens: Tokens;

  before(async () => {
    t = await startTestDaemon({ config: CONFIG });
    for (const [name, template] of [
      ['den', 'colours'],
      ['idle', 'cat'],
    ] as const) {
      const r = await t.op('POST', '/api/v1/agents/spawn', { template, name });
      assert.equal(r.status, 201, r.text);
    }
    tokens = await issueTokens(t.tcp, t.daemon.paths, 'den');
    await until('den to print', () => paneText(t.home, 'den').includes('red alert'), 10_000);
  });
  after(async () => t?.stop());
  /** The daemon runs on a manual clock: the watch's interval passes as the test advances it. */
  const watchUntil = (what: string, pred: () => boolean) =>
    until(
      what,
      () => {
        (t.clock as ManualClock).advance(100);
        return pred();
      },
      5000,
      20,
    );

  it('the snapshot has the pane with its colours, its size and cursor', async () => {
    const r = await t.op('GET', '/api/v1/agents/den/terminal');
    assert.equal(r.status, 200, r.text);
    const screen = r.json.data;
    assert.equal(screen.agent, 'den');
    assert.match(screen.ansi, /\x1b\[31mred alert\x1b\[(0|39)m plain/);
    assert.ok(screen.cols > 20 && screen.rows > 5, JSON.stringify(screen));
    assert.deepEqual(Object.keys(screen.cursor).sort(), ['x', 'y']);
    assert.equal(screen.cursor.y, 1, 'the cursor is on the line after the print');
  });

  it('a watcher gets the screen at once, then each change; a key pressed from the key bar reaches the pane', async () => {
    const stream = await SseClient.open(t.tcp, '/api/v1/agents/den/terminal/stream', tokens.device);
    assert.equal(stream.status, 200);
    const [first] = await stream.waitFor(1);
    assert.equal(first!.event, 'screen');
    assert.match(first!.data.ansi, /red alert/);

    const pressed = await t.as(tokens.device).op('POST', '/api/v1/agents/den/terminal/keys', { keys: ['y', 'Enter'] });
    assert.equal(pressed.status, 200, pressed.text);
    assert.deepEqual(pressed.json.data, { agent: 'den', pressed: 2 });
    // cat echoes the y as typed, then prints it again after Enter.
    await watchUntil('the echo', () => stream.events.some((e) => /\ny\ny/.test(e.data.ansi ?? '')));
    stream.close();
  });

  it('the stream ends with `ended` when the agent stops; a stopped agent has no terminal and takes no keys', async () => {
    const stream = await SseClient.open(t.tcp, '/api/v1/agents/idle/terminal/stream', tokens.operator);
    await stream.waitFor(1);
    assert.equal((await t.op('POST', '/api/v1/agents/idle/stop')).status, 200);
    await watchUntil('the stream to end', () => stream.ended);
    assert.equal(stream.events.at(-1)!.event, 'ended');
    const snap = await t.op('GET', '/api/v1/agents/idle/terminal');
    assert.equal(snap.status, 409);
    assert.equal(snap.json.code, 'agent_not_running');
    assert.equal((await t.op('POST', '/api/v1/agents/idle/terminal/keys', { keys: ['Enter'] })).status, 409);
    assert.equal((await t.op('GET', '/api/v1/agents/nobody/terminal')).status, 404);
  });

  it('only named keys from the key bar are taken; API clients may neither watch nor type', async () => {
    for (const keys of [['rm -rf /'], ['C-d'], [], Array(17).fill('y')]) {
      const r = await t.op('POST', '/api/v1/agents/den/terminal/keys', { keys });
      assert.equal(r.status, 400, `${JSON.stringify(keys)}: ${r.text}`);
    }
    assert.equal((await t.op('POST', '/api/v1/agents/den/terminal/keys', { keys: ['y'], text: 'x' })).status, 400);
    for (const token of [tokens.client, tokens.poster, tokens.agent]) {
      assert.equal((await t.as(token).op('GET', '/api/v1/agents/den/terminal')).status, 403);
      assert.equal((await t.as(token).op('POST', '/api/v1/agents/den/terminal/keys', { keys: ['y'] })).status, 403);
    }
    assert.doesNotMatch(paneText(t.home, 'den'), /rm -rf/);
  });
});
