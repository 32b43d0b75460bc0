// A person is told when an agent is stuck (issue 29 item 7), with a real Claude Code agent: its start-up dialog
// Leo leaves to a person (the API key in its environment was never approved on this machine), a message sent right
// after the spawn. The agent's own needs_input alert shows in /api/v1/state and on the event stream, pushes, per
// each device's preferences, to a webhook on 127.0.0.1, and shows in Leo Web (real Chromium); a person answers the
// dialog at the terminal some seconds later, and the alert clears as the message goes in. The real daemon runs in-process, the real claude in Leo's tmux;
// only the model is scripted.
//
// Not the trust dialog the issue names: Leo marks its agents' workspaces trusted before Claude starts and answers
// the trust question itself when a stale config brings it back (claude-screen.ts), so it never holds an agent. The
// API-key question is the start-up dialog that does.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { AnthropicServer, contentBlocks, lastUserMessage } from '../helpers/anthropic-server.js';
import { claudeSandbox, findClaude } from '../helpers/claude-cli.js';
import { startTestDaemon } from '../helpers/daemon.js';
import { request } from '../helpers/http.js';
import { SseClient } from '../helpers/sse-client.js';
import { alive, until } from '../helpers/wait.js';
import type { ChatMessage } from '../helpers/claude-agent.js';
import { startReceiver } from '../push/helpers.js';
import { launchBrowser, pairedPage, Screenshots } from '../web/browser.js';

const MODEL = 'claude-sonnet-4-5';

describe('a real Claude agent held by a terminal dialog tells its owner (issue 29 item 7)', () => {
  it(
    'raises needs_input (state, events, push) and clears it once a person answers at the terminal',
    {
      timeout: 180_000,
    },
    async (t) => {
      const claude = await findClaude();
      if ('missing' in claude) return t.skip(claude.missing);
      const api = await AnthropicServer.start({
        script: (req, { sideRequest }) => {
          if (sideRequest) return undefined;
          const said = contentBlocks(lastUserMessage(req.body))
            .map((b) => (b?.type === 'text' ? String(b.text) : ''))
            .join('\n');
          return { text: /STUCK-1/.test(said) ? 'reply to STUCK-1' : 'ok' };
        },
      });
      const stranger = claudeSandbox({ baseUrl: api.url });
      stranger.seedAsUser({ approveKey: false });
      const env = { ...stranger.env, PATH: [path.dirname(claude.bin), process.env.PATH].join(path.delimiter) };
      const receiver = await startReceiver();
      const d = await startTestDaemon({
        config: [
          'chat:',
          '  webhook_allowed_hosts: [127.0.0.1]',
          'environments:',
          `  unapproved: ${JSON.stringify(env)}`,
          'templates:',
          '  visitor:',
          '    harness: claude',
          `    model: ${MODEL}`,
          '    environments: [unapproved]',
          '',
        ].join('\n'),
      });
      const sock = path.join(d.home, 'state', 'tmux.sock');
      const tmux = (...args: string[]) => spawnSync('tmux', ['-S', sock, ...args], { encoding: 'utf8' }).stdout ?? '';
      const pane = () => tmux('capture-pane', '-p', '-t', '=leo-visitor:');
      let events: SseClient | undefined;
      t.after(async () => {
        events?.close();
        const pid = Number(tmux('display-message', '-p', '-t', '=leo-visitor:', '#{pane_pid}').trim());
        await d.stop();
        if (pid > 0) await until('claude to exit', () => !alive(pid), 10_000).catch(() => undefined);
        await api.close();
        await receiver.close();
        stranger.cleanup();
      });
      const token = d.daemon.operatorToken;
      const state = async () =>
        (await d.op('GET', '/api/v1/state')).json.data.agents.find((a: { name: string }) => a.name === 'visitor');
      const thread = async () =>
        (await d.op('GET', '/api/v1/chat/visitor/messages?limit=200')).json.data.messages as ChatMessage[];
      const withPane = <T>(p: Promise<T>) =>
        p.catch(async (err) => {
          const lines = (await thread()).map((m) => `${m.direction} ${m.kind} ${m.state} ${m.text}`);
          throw new Error(`${(err as Error).message}; thread:\n${lines.join('\n')}\npane:\n${pane()}`);
        });

      // The owner's phone wants only what needs an answer; a muted tablet wants nothing.
      for (const [device, mode] of [
        ['phone', 'asks_only'],
        ['tablet', 'none'],
      ] as const) {
        const sub = await request(d.tcp, 'POST', '/api/v1/push/subscriptions', {
          token: d.daemon.tokens.issue('device', device).token,
          body: {
            provider: 'webhook',
            url: `${receiver.url}/${device}`,
            secret: 'a-long-enough-shared-secret',
            device,
            prefs: { mode },
          },
        });
        assert.equal(sub.status, 201, sub.text);
      }
      const pushes = () =>
        receiver.requests.map((r): Record<string, any> => ({ to: r.url, ...JSON.parse(r.body.toString('utf8')) }));
      events = await SseClient.open(d.tcp, '/api/v1/events', token);
      const alertEvents = () => events!.events.filter((e) => e.event === 'agent_needs_input').map((e) => e.data);

      const spawned = await d.op('POST', '/api/v1/agents/spawn', { template: 'visitor', name: 'visitor' });
      assert.equal(spawned.status, 201, spawned.text);
      const sent = await d.op('POST', '/api/v1/chat/visitor/messages', { text: 'Are you there? STUCK-1' });
      assert.equal(sent.status, 201, sent.text);

      // --- The alert: in the fleet state, on the stream, and pushed to the phone only.
      const alert = await withPane(
        until(
          'the needs_input alert in /api/v1/state',
          async () => (await state())?.needs_input ?? undefined,
          45_000,
          250,
        ),
      );
      assert.equal(alert.reason, 'dialog');
      assert.match(
        alert.text,
        /^Its terminal is asking “Do you want to use this API key\?” \(Yes \/ No \(recommended\)\)/,
      );
      assert.ok(!Number.isNaN(Date.parse(alert.at)));
      await until('the alert on the event stream', () => alertEvents().length > 0, 10_000, 50);
      assert.deepEqual(alertEvents()[0], {
        seq: alertEvents()[0].seq,
        at: alertEvents()[0].at,
        agent: 'visitor',
        needs_input: alert,
      });
      await until('the attention push', () => pushes().length > 0, 10_000, 50);
      const [push] = pushes();
      assert.deepEqual(
        {
          to: push!.to,
          kind: push!.kind,
          agent: push!.agent,
          title: push!.title,
          body: push!.body,
          id: push!.message_id,
        },
        { to: '/phone', kind: 'needs_input', agent: 'visitor', title: 'visitor', body: alert.text, id: undefined },
        'the agent’s own alert: no message id',
      );

      // Leo Web, opened after the push: the card needs you and says why, and so does the thread under its header.
      const browser = await launchBrowser();
      t.after(() => browser.close());
      const { page } = await pairedPage(browser, d, 'laptop');
      const shots = new Screenshots();
      const card = page.locator('[data-agent="visitor"]');
      await card.locator('[data-needs-input="dialog"]').waitFor();
      assert.equal((await card.locator('[data-needs-input]').textContent())?.trim(), alert.text);
      assert.equal((await card.locator('.agent-activity').textContent())?.trim(), 'needs you');
      await shots.take(page, 'fleet-needs-input');
      await card.locator('a.agent-link').click();
      const strip = page.locator('[data-thread="visitor"] [data-needs-input="dialog"]');
      await strip.waitFor();
      assert.equal((await strip.textContent())?.trim(), alert.text);
      await shots.take(page, 'thread-needs-input');

      // A person gets to the terminal some seconds later; meanwhile the message waits, the alert stays up, once.
      await sleep(3_000);
      assert.equal((await thread()).find((m) => m.id === sent.json.data.id)?.state, 'pending');
      assert.deepEqual((await state()).needs_input, alert, 'the same alert, not raised again');
      assert.equal(alertEvents().length, 1);
      assert.equal(pushes().length, 1, 'one push for one dialog; the muted tablet got none');
      assert.match(pane(), /Do you want to use this API key\?/, 'the dialog is still up, unanswered');
      tmux('send-keys', '-t', '=leo-visitor:', 'Up');
      await sleep(300);
      tmux('send-keys', '-t', '=leo-visitor:', 'Enter');

      // --- Cleared as the dialog goes, and the message goes in and is answered.
      await withPane(until('the alert to clear', async () => (await state()).needs_input === null, 30_000, 250));
      await until('the clear on the event stream', () => alertEvents().length === 2, 10_000, 50);
      assert.equal(alertEvents()[1].needs_input, null);
      await strip.waitFor({ state: 'detached' });
      await withPane(
        until(
          'the waiting message to be delivered and replied to',
          async () => (await thread()).find((m) => m.reply_to === sent.json.data.id && m.text === 'reply to STUCK-1'),
          60_000,
          250,
        ),
      );
      assert.equal((await thread()).find((m) => m.id === sent.json.data.id)?.state, 'delivered');
      assert.equal(
        pushes().filter((p) => p.kind === 'needs_input').length,
        1,
        'nothing more to answer, nothing pushed',
      );
    },
  );
});
