// A real agent CLI (Claude Code, Codex, opencode) moved between two machines mid-conversation (issue 32, "Done when"
// 1), what each harness's move test shares: a hub and a host `box` on the hosts bench (real daemons, each in a network
// namespace of its own, or on loopback ports where namespaces are not available), each with the harness's template
// and a CLI config like a returning user's in its own home (onboarding done, the agent's workspace never seen); the
// scripted model server in the test's process, at the bench network's gateway where the CLIs in the namespaces reach
// it. The conversation: the model picks a secret word on the hub, the agent moves to box through the hub's route,
// and the next message, sent to the old address, is answered from box with the word.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import type { TestContext } from 'node:test';
import { Agent } from '../../src/wire/fleet.js';
import { MessagePage } from '../../src/wire/message.js';
import { MoveOperation } from '../../src/wire/move.js';
import { AnthropicServer, isAgentTurn, userPrompts as claudePrompts } from './anthropic-server.js';
import { claudeSandbox } from './claude-cli.js';
import { codexSandbox, codexTemplateConfig } from './codex-cli.js';
import { paneText } from './daemon.js';
import { HARNESS_MODEL } from './harness-agent.js';
import { HostBench } from './hosts/bench.js';
import type { HostDaemon } from './hosts/host-daemon.js';
import { lastUserText, OpenAiServer, type RecordedRequest } from './openai-server.js';
import { findOpencode, opencodeSandbox, opencodeTemplateConfig } from './opencode-cli.js';
import { findCli, harnessTemplateConfig, type PinnedCli } from './pinned-cli.js';
import { ResponsesServer, userPrompts as codexPrompts } from './responses-server.js';
import { secretWordConversation } from './secret-word.js';
import { until } from './wait.js';
import { git, workspaceSnapshot } from './workspace-snapshot.js';

const AGENT = 'sage';

/** One agent turn the scripted model served: its last typed prompt, and the whole request as JSON. */
export interface ModelTurn {
  prompt: string;
  request: string;
}

/** The harness's scripted model server, answering agent turns with `reply` (secret-word.ts). */
interface ScriptedModel {
  /** The base URL the CLI's config names. */
  baseUrl: string;
  turns(): ModelTurn[];
  close(): Promise<void>;
}

type Reply = (prompt: string, request: string) => string | undefined;

/** Per harness: its model server, and the leo.yaml of a machine whose user has the CLI set up in `home`. */
interface HarnessKit {
  model(host: string, reply: Reply): Promise<ScriptedModel>;
  /** Makes the user's CLI config in `home` and answers the leo.yaml sections of a template `coder` for it. */
  config(bin: string, userDeps: string | null, baseUrl: string, home: string, workspace: string): string;
}

const turn = (prompt: string | undefined, req: RecordedRequest): ModelTurn => ({
  prompt: prompt ?? '',
  request: JSON.stringify(req.body),
});

/** The server's reply to an agent turn: `reply`'s text, or undefined for the server's default. */
function answer(reply: Reply, t: ModelTurn): { text: string } | undefined {
  const text = reply(t.prompt, t.request);
  return text === undefined ? undefined : { text };
}

const KITS: Record<PinnedCli, HarnessKit> = {
  claude: {
    async model(host, reply) {
      // Claude's own side requests (no tools offered) take the default reply.
      const agentTurn = (req: RecordedRequest) => turn(claudePrompts(req.body).at(-1), req);
      const api = await AnthropicServer.start({
        host,
        script: (req, { sideRequest }) =>
          sideRequest || !isAgentTurn(req.body) ? undefined : answer(reply, agentTurn(req)),
      });
      return {
        baseUrl: api.url,
        turns: () =>
          api
            .messageRequests()
            .filter((r) => isAgentTurn(r.body))
            .map(agentTurn),
        close: () => api.close(),
      };
    },
    config(bin, _userDeps, baseUrl, home, workspace) {
      const sandbox = claudeSandbox({ baseUrl, under: home });
      sandbox.seedAsUser();
      return harnessTemplateConfig({
        harness: 'claude',
        bin,
        env: sandbox.env,
        model: 'claude-sonnet-4-5',
        environment: 'anthropic',
        workspace,
      });
    },
  },
  codex: {
    async model(host, reply) {
      const agentTurn = (req: RecordedRequest) => turn(codexPrompts(req.body).at(-1), req);
      const api = await ResponsesServer.start({
        host,
        script: (req) => answer(reply, agentTurn(req)),
      });
      return { baseUrl: api.baseUrl, turns: () => api.responseRequests().map(agentTurn), close: () => api.close() };
    },
    config(bin, _userDeps, baseUrl, home, workspace) {
      const sandbox = codexSandbox({ baseUrl, model: HARNESS_MODEL, under: home });
      return codexTemplateConfig(bin, sandbox, HARNESS_MODEL, { workspace });
    },
  },
  opencode: {
    async model(host, reply) {
      // opencode's own side request (the session's title) offers no tools: it takes the default reply.
      const isTurn = (req: RecordedRequest) => Array.isArray(req.body?.tools) && req.body.tools.length > 0;
      const agentTurn = (req: RecordedRequest) => turn(lastUserText(req.body), req);
      const api = await OpenAiServer.start({
        host,
        script: (req) => (isTurn(req) ? answer(reply, agentTurn(req)) : undefined),
      });
      return {
        baseUrl: api.baseUrl,
        turns: () => api.completionRequests().filter(isTurn).map(agentTurn),
        close: () => api.close(),
      };
    },
    config(bin, userDeps, baseUrl, home, workspace) {
      const sandbox = opencodeSandbox({ baseUrl, model: HARNESS_MODEL, userDeps, under: home });
      return opencodeTemplateConfig(bin, sandbox, { workspace });
    },
  },
};

export interface MovedConversation {
  hub: HostDaemon;
  box: HostDaemon;
  /** The agent's workspace on each machine. */
  workspaces: { hub: string; box: string };
  /** The model's request for the turn answered on box. */
  resumed: ModelTurn;
}

/**
 * Runs the move of a `harness` agent mid-conversation and asserts what every harness must do: the move done, the
 * workspace on box as it was on the hub (files, git status, uncommitted and untracked changes), a dormant record on the
 * hub, the next message sent to the old address answered from box with the earlier turn in the model's request (whose
 * request names box's workspace: the CLI resumed there), the whole thread on the hub, and nothing typed into the old
 * pane. Answers what a test checks further, or null (the test skipped, saying why) when the pinned CLI is missing.
 */
export async function moveMidConversation(
  t: TestContext,
  harness: PinnedCli,
  secret: string,
): Promise<MovedConversation | null> {
  const found = harness === 'opencode' ? await findOpencode() : await findCli(harness);
  if ('missing' in found) {
    t.skip(found.missing);
    return null;
  }
  const userDeps = 'userDeps' in found && typeof found.userDeps === 'string' ? found.userDeps : null;
  const words = secretWordConversation(secret);
  const started = Date.now();
  const lap = (what: string) => t.diagnostic(`${what} at ${((Date.now() - started) / 1000).toFixed(1)} s`);

  const bench = HostBench.open();
  t.after(() => bench.close());
  t.diagnostic(bench.network.note);
  const kit = KITS[harness];
  const model = await kit.model(bench.network.gateway, words.reply);
  t.after(() => model.close());
  const workspace = `~/work/${AGENT}`;
  const config = (home: string) => kit.config(found.bin, userDeps, model.baseUrl, home, workspace);
  const [hub, box] = await Promise.all([bench.host('hub', config), bench.host('box', config)]);
  const workspaces = { hub: path.join(hub.home, 'work', AGENT), box: path.join(box.home, 'work', AGENT) };
  const pane = (host: HostDaemon) => paneText(host.home, AGENT);
  const texts = async (agent: string) =>
    (await hub.get(`/api/v1/chat/${agent}/messages?limit=200`, MessagePage)).messages.filter((m) => m.kind === 'text');
  // A turn includes the CLI's start: opencode's takes 3 s on an idle machine and up to a minute on a loaded one.
  const reply = (agent: string, text: string, host: HostDaemon) =>
    until(
      `the reply on ${host.name}`,
      async () => (await texts(agent)).some((m) => m.text === text),
      120_000,
      250,
    ).catch((err) => {
      throw new Error(`${(err as Error).message}; ${host.name}'s pane:\n${pane(host)}\nits log:\n${host.logTail()}`);
    });
  lap('both daemons up');

  // A git workspace with a commit, an uncommitted edit and an untracked file.
  const ws = workspaces.hub;
  fs.mkdirSync(ws, { recursive: true });
  git(ws, 'init', '-q', '-b', 'main');
  fs.writeFileSync(path.join(ws, 'README.md'), `${AGENT}\n`);
  git(ws, 'add', '.');
  git(ws, 'commit', '-q', '-m', 'first');
  fs.appendFileSync(path.join(ws, 'README.md'), 'an uncommitted edit\n');
  fs.writeFileSync(path.join(ws, 'notes.txt'), 'untracked\n');
  const spawned = await hub.op('POST', '/api/v1/agents/spawn', { template: 'coder', name: AGENT });
  assert.equal(spawned.status, 201, spawned.text);
  await bench.pair(hub, box);

  // Sent at once: Leo types it when the CLI takes input.
  const first = await hub.op('POST', `/api/v1/chat/${AGENT}/messages`, { text: words.first });
  assert.equal(first.status, 201, first.text);
  await reply(AGENT, words.picked, hub);
  lap('the first turn');
  const snapshot = workspaceSnapshot(ws);

  const moved = await hub.op('POST', `/api/v1/agents/${AGENT}/move`, { to: 'box' });
  assert.equal(moved.status, 202, moved.text);
  const id = MoveOperation.parse(moved.json.data).id;
  const done = await until(
    'the move settled',
    async () => {
      const op = await hub.get(`/api/v1/moves/${id}`, MoveOperation);
      return (op.step === 'done' || (op.step === 'failed' && op.undo.length === 0)) && op;
    },
    // opencode's carrier starts opencode twice (its export on the hub, its import on box).
    120_000,
    250,
  );
  assert.equal(done.step, 'done', JSON.stringify(done.failure));
  lap('moved');
  assert.deepEqual(workspaceSnapshot(workspaces.box), snapshot, 'the workspace as it was');
  const dormant = await hub.get(`/api/v1/agents/${AGENT}`, Agent);
  assert.deepEqual([dormant.status, dormant.moved_to], ['stopped', 'box']);

  const sent = await hub.op('POST', `/api/v1/chat/${AGENT}/messages`, { text: words.second });
  assert.equal(sent.status, 201, sent.text);
  const there = `${AGENT}@box`;
  assert.equal(sent.json.data.agent, there, 'the old address forwards');
  await reply(there, words.remembered, box);
  lap('the turn on box');
  const resumed = model.turns().findLast((turn) => turn.prompt.includes(words.second));
  assert.ok(resumed, 'the turn on box reached the model');
  assert.ok(resumed.request.includes(words.first), 'the first prompt is in the resumed request');
  assert.ok(resumed.request.includes(workspaces.box), "the CLI resumed in box's workspace");
  assert.deepEqual(
    (await texts(there)).map((m) => m.text),
    [words.first, words.picked, words.second, words.remembered],
    'the whole history on the hub',
  );
  assert.ok(!pane(hub).includes(words.second), 'nothing typed into the old pane');
  return { hub, box, workspaces, resumed };
}
