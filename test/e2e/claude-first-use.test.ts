// A new user's first minutes with real Claude Code agents (issue 14 items 2-5): a Claude config like a real user's
// (onboarding done, their key approved, their own projects trusted) that has never seen the workspace Leo creates,
// a first prompt given at spawn and a chat message sent the instant the spawn answers, an agent whose Claude dies
// before it ever had a conversation, and a start-up dialog Leo cannot pass, answered by a person at the terminal
// several seconds later. The real daemon runs in-process, the real claude in Leo's tmux; only the model is scripted.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { ManualClock } from '../../src/core/clock.js';
import { AnthropicServer, lastUserMessage, contentBlocks } from '../helpers/anthropic-server.js';
import { claudeSandbox, findClaude, type ClaudeSandbox } from '../helpers/claude-cli.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { request } from '../helpers/http.js';
import { alive, until } from '../helpers/wait.js';
import type { ChatMessage } from '../helpers/claude-agent.js';

const MODEL = 'claude-sonnet-4-5';

interface Rig {
  d: TestDaemon;
  api: AnthropicServer;
  user: ClaudeSandbox;
  /** Same machine, but the key in this environment was never approved: Claude asks about it at start. */
  stranger: ClaudeSandbox;
  userConfig: Record<string, any>;
  pane(agent: string): string;
  tmux(...args: string[]): string;
  thread(agent: string): Promise<ChatMessage[]>;
  send(agent: string, text: string): Promise<ChatMessage>;
  state(agent: string): Promise<any>;
}

/** The text of the prompt a model request answers, without Claude's system reminders. */
function promptOf(body: any): string {
  const blocks = contentBlocks(lastUserMessage(body));
  return blocks
    .filter((b) => b?.type === 'text')
    .map((b) =>
      String(b.text)
        .replace(/<system-reminder>[\s\S]*?<\/system-reminder>/g, '')
        .trim(),
    )
    .filter(Boolean)
    .join('\n');
}

async function rig(t: TestContext): Promise<Rig | null> {
  const claude = await findClaude();
  if ('missing' in claude) {
    t.skip(claude.missing);
    return null;
  }
  const api = await AnthropicServer.start({
    script: (req, { sideRequest }) => {
      if (sideRequest) return undefined;
      const said = promptOf(req.body);
      const marker = /\b([A-Z]+-\d+)\b/.exec(said)?.[1];
      return { text: marker ? `reply to ${marker}` : 'ok' };
    },
  });
  const user = claudeSandbox({ baseUrl: api.url });
  const userConfig = user.seedAsUser();
  const stranger = claudeSandbox({ baseUrl: api.url });
  stranger.seedAsUser({ approveKey: false });
  const withPath = (s: ClaudeSandbox) => ({
    ...s.env,
    PATH: [path.dirname(claude.bin), process.env.PATH].join(path.delimiter),
  });
  // No workspace anywhere: each agent gets the folder Leo creates for it, which no Claude config has ever seen.
  const config = [
    'environments:',
    `  mine: ${JSON.stringify(withPath(user))}`,
    `  unapproved: ${JSON.stringify(withPath(stranger))}`,
    'templates:',
    '  coder:',
    '    harness: claude',
    `    model: ${MODEL}`,
    '    environments: [mine]',
    '  visitor:',
    '    harness: claude',
    `    model: ${MODEL}`,
    '    environments: [unapproved]',
    '',
  ].join('\n');
  // The test drives sweeps by advancing the daemon's clock, and reply capture looks for a prompt in the transcript
  // (real time) from its delivery time (daemon time) on: a clock started behind real time keeps that bound earlier.
  const d = await startTestDaemon({ config, clock: new ManualClock(Date.now() - 10 * 60_000) });
  const token = d.daemon.operatorToken;
  const sock = path.join(d.home, 'state', 'tmux.sock');
  const tmux = (...args: string[]) => spawnSync('tmux', ['-S', sock, ...args], { encoding: 'utf8' }).stdout ?? '';
  t.after(async () => {
    const pids = tmux('list-panes', '-a', '-F', '#{pane_pid}')
      .split('\n')
      .map(Number)
      .filter((p) => p > 0);
    await d.stop();
    for (const pid of pids) await until('claude to exit', () => !alive(pid), 10_000).catch(() => undefined);
    await api.close();
    user.cleanup();
    stranger.cleanup();
  });
  const thread = async (agent: string) => {
    const r = await request(d.tcp, 'GET', `/api/v1/chat/${agent}/messages?limit=200`, { token });
    assert.equal(r.status, 200, r.text);
    return r.json.data.messages as ChatMessage[];
  };
  return {
    d,
    api,
    user,
    stranger,
    userConfig,
    tmux,
    pane: (agent) => tmux('capture-pane', '-p', '-t', `=leo-${agent}:`),
    thread,
    async send(agent, text) {
      const r = await request(d.tcp, 'POST', `/api/v1/chat/${agent}/messages`, { token, body: { text } });
      assert.equal(r.status, 201, r.text);
      return r.json.data;
    },
    async state(agent) {
      const r = await request(d.tcp, 'GET', '/api/v1/state', { token });
      return r.json.data.agents.find((a: any) => a.name === agent);
    },
  };
}

async function spawn(r: Rig, body: Record<string, unknown>) {
  const res = await request(r.d.tcp, 'POST', '/api/v1/agents/spawn', { token: r.d.daemon.operatorToken, body });
  assert.equal(res.status, 201, res.text);
  return res.json.data;
}

/** The model turns that answered a prompt holding `marker`. */
const turnsFor = (r: Rig, marker: string) =>
  r.api.messageRequests().filter((q) => promptOf(q.body).includes(marker) && !promptOf(q.body).includes('reply to'));

describe('first use with real Claude agents', () => {
  it(
    'an unseen workspace, a spawn prompt and a message sent at once, a Claude that dies before any conversation, and a dialog answered by a person',
    { timeout: 240_000 },
    async (t) => {
      const r = await rig(t);
      if (!r) return;
      const clock = r.d.clock as ManualClock;
      const withPane = <T>(agent: string, p: Promise<T>) =>
        p.catch(async (err) => {
          const thread = (await r.thread(agent)).map((m) => `${m.direction} ${m.kind} ${m.state} ${m.text}`);
          throw new Error(`${(err as Error).message}; thread:\n${thread.join('\n')}\npane:\n${r.pane(agent)}`);
        });

      // --- Items 2, 4, 5: spawn with a prompt, and a message the instant the spawn answers.
      const agent = await spawn(r, { template: 'coder', name: 'newbie', prompt: 'Say hello, FIRST-1' });
      const second = await r.send('newbie', 'And now this, SECOND-2');
      const delivered = async (m: string) =>
        withPane(
          'newbie',
          until(
            `${m} delivered and replied to`,
            async () => {
              const th = await r.thread('newbie');
              const inbound = th.find((x) => x.direction === 'in' && x.text.includes(m));
              if (inbound?.state === 'failed') throw new Error(`failed: ${inbound.note}`);
              const reply = th.find((x) => x.direction === 'out' && x.reply_to === inbound?.id);
              return inbound?.state === 'delivered' && reply ? { inbound, reply } : undefined;
            },
            60_000,
            250,
          ),
        );
      const first = await delivered('FIRST-1');
      const secondDone = await delivered('SECOND-2');
      assert.equal(secondDone.inbound.id, second.id);
      assert.equal(first.reply.text, 'reply to FIRST-1');
      assert.equal(secondDone.reply.text, 'reply to SECOND-2');
      // Each reached Claude as its own prompt, exactly as sent: nothing glued, nothing lost in a dialog.
      assert.deepEqual(
        turnsFor(r, 'FIRST-1').map((q) => promptOf(q.body)),
        ['[Leo Chat] Say hello, FIRST-1'],
      );
      assert.deepEqual(
        turnsFor(r, 'SECOND-2').map((q) => promptOf(q.body)),
        ['[Leo Chat] And now this, SECOND-2'],
      );
      // Leo trusted its own workspace in the user's config and changed nothing else of theirs.
      const after = JSON.parse(fs.readFileSync(path.join(r.user.configDir, '.claude.json'), 'utf8'));
      const workspace = fs.realpathSync(agent.workspace);
      assert.equal(after.projects[workspace]?.hasTrustDialogAccepted, true);
      // (Claude itself keeps counters and flags in the same file; these are the user's own choices.)
      for (const key of ['theme', 'customApiKeyResponses', 'hasCompletedOnboarding'])
        assert.deepEqual(after[key], r.userConfig[key], `user's ${key} untouched`);
      for (const [dir, entry] of Object.entries(r.userConfig.projects as Record<string, any>))
        for (const [k, v] of Object.entries(entry)) assert.deepEqual(after.projects[dir][k], v);

      // --- Item 3: a Claude that dies before it ever had a conversation starts again (no --continue loop).
      await spawn(r, { template: 'coder', name: 'fresh' });
      await withPane(
        'fresh',
        until('fresh to show its prompt', () => r.pane('fresh').includes('for shortcuts'), 30_000),
      );
      const pid = Number(r.tmux('display-message', '-p', '-t', '=leo-fresh:', '#{pane_pid}').trim());
      process.kill(pid, 'SIGKILL');
      await until(
        'the sweep to see it die and restart it',
        async () => {
          clock.advance(2_000);
          const a = await r.state('fresh');
          return a.restarts >= 1 && a.status === 'running' ? a : undefined;
        },
        30_000,
        300,
      );
      // The restarted Claude stays up (a `--continue` without a conversation exits 1 at once, over and over).
      await withPane(
        'fresh',
        until('fresh to show its prompt again', () => r.pane('fresh').includes('for shortcuts'), 30_000),
      );
      for (let i = 0; i < 5; i++) {
        clock.advance(2_000);
        await new Promise((res) => setTimeout(res, 400));
      }
      const still = await r.state('fresh');
      assert.equal(still.status, 'running');
      assert.equal(still.restarts, 1, 'restarted once, not looping');
      assert.equal(still.stop_reason, null);
      const afterCrash = await r.send('fresh', 'Still there? THIRD-3');
      await withPane(
        'fresh',
        until(
          'the message after the crash to be replied to',
          async () => {
            const th = await r.thread('fresh');
            return th.find((x) => x.reply_to === afterCrash.id && x.text === 'reply to THIRD-3');
          },
          60_000,
          250,
        ),
      );

      // --- Item 2: a start-up dialog Leo cannot pass is described in the thread, and nothing is typed into it.
      await spawn(r, { template: 'visitor', name: 'visitor' });
      const waiting = await r.send('visitor', 'Hello from my phone, FOURTH-4');
      const note = await withPane(
        'visitor',
        until(
          'a note saying what the terminal asks',
          async () => {
            const th = await r.thread('visitor');
            return th.find((x) => x.kind === 'system' && x.text.includes('Do you want to use this API key?'));
          },
          30_000,
          250,
        ),
      );
      assert.match(note.text, /Leo typed nothing into it/);
      assert.match(note.text, /Yes \/ No \(recommended\)/);
      // A person gets to the terminal some seconds later; meanwhile the message waits, untyped.
      await new Promise((res) => setTimeout(res, 6_000));
      const meanwhile = (await r.thread('visitor')).find((x) => x.id === waiting.id)!;
      assert.equal(meanwhile.state, 'pending');
      assert.equal(turnsFor(r, 'FOURTH-4').length, 0);
      assert.match(r.pane('visitor'), /Do you want to use this API key\?/, 'the dialog is still up, unanswered');
      r.tmux('send-keys', '-t', '=leo-visitor:', 'Up');
      await new Promise((res) => setTimeout(res, 300));
      r.tmux('send-keys', '-t', '=leo-visitor:', 'Enter');
      await withPane(
        'visitor',
        until(
          'the waiting message to go in once the dialog is answered',
          async () => {
            const th = await r.thread('visitor');
            return th.find((x) => x.reply_to === waiting.id && x.text === 'reply to FOURTH-4');
          },
          60_000,
          250,
        ),
      );
      assert.equal((await r.thread('visitor')).find((x) => x.id === waiting.id)!.state, 'delivered');
    },
  );
});
