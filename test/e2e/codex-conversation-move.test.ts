// Codex's conversation carried to another machine (issue 32), with the real Codex TUI against the scripted Responses
// API: a Leo agent has a turn in one CODEX_HOME and workspace; its adapter packs the rollout, and unpacks it into a
// second CODEX_HOME for an agent in another folder; Leo's launch plan for a restart there (`codex resume <id>`) starts
// Codex, which must take input at once and send the model the earlier turn with the next message.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileDigest } from '../../src/core/file-digest.js';
import { LEO_BIN } from '../../src/core/leo-bin.js';
import { realExec } from '../../src/core/exec.js';
import { HARNESSES } from '../../src/harnesses/index.js';
import { planLaunch } from '../../src/harnesses/launch.js';
import { writePlannedFiles } from '../../src/harnesses/plan-files.js';
import { ConversationManifest } from '../../src/wire/conversation-pack.js';
import { codexSandbox, findCodex } from '../helpers/codex-cli.js';
import { HARNESS_MODEL, paneReady, startHarnessAgent } from '../helpers/harness-agent.js';
import { userPrompts, type ResponsesServer } from '../helpers/responses-server.js';
import { endProcessesIn } from '../helpers/strays.js';
import { until } from '../helpers/wait.js';

const AGENT = 'codex-mover';
const SECRET = 'PAPAYA-7731';

describe('codex conversation moved to another CODEX_HOME and workspace (real CLI)', () => {
  it('codex resumed there sends the model the earlier turn with the next message', { timeout: 120_000 }, async (t) => {
    const a = await startHarnessAgent(t, {
      harness: 'codex',
      agent: AGENT,
      script: (req) => {
        const last = userPrompts(req.body).at(-1) ?? '';
        return last.includes('the secret word?') ? { text: `The secret word is ${SECRET}.` } : undefined;
      },
    });
    if (!a) return;
    const found = await findCodex();
    assert.ok('bin' in found);
    const sent = await a.send('what is the secret word?');
    await a.withPane(
      until('the reply', async () => (await a.thread()).find((m) => m.reply_to === sent.id), 60_000, 250),
    );

    // The source: the agent's CODEX_HOME and workspace, and the session its rollout is named for.
    const carrier = HARNESSES.codex.conversation!;
    const sourceHome = { env: a.sandbox.env, baseEnv: process.env };
    const rollout = fs
      .readdirSync(path.join(a.sandbox.env.CODEX_HOME!, 'sessions'), { recursive: true })
      .map(String)
      .find((f) => f.endsWith('.jsonl'));
    const sessionId = /-([0-9a-f-]{36})\.jsonl$/.exec(rollout ?? '')?.[1];
    assert.ok(sessionId, rollout);
    const packed = fs.mkdtempSync(path.join(a.sandbox.dir, 'pack-'));
    const sourceWorkspace = path.join(a.d.home, 'agents', AGENT);
    const manifest = await carrier.pack(
      { home: sourceHome, workspace: sourceWorkspace, dir: packed, exec: realExec },
      sessionId,
    );

    // The target: another CODEX_HOME (the same model server) and a workspace at another path.
    const server = a.server as ResponsesServer;
    const b = codexSandbox({ baseUrl: server.baseUrl, model: HARNESS_MODEL });
    const socket = path.join(b.dir, 'tmux.sock');
    t.after(async () => {
      spawnSync('tmux', ['-S', socket, 'kill-server'], { stdio: 'ignore' });
      await endProcessesIn(b.dir);
      b.cleanup();
    });
    const workspace = path.join(b.dir, 'moved', AGENT);
    fs.mkdirSync(workspace, { recursive: true });
    const received = path.join(b.dir, 'received');
    fs.cpSync(packed, received, { recursive: true });
    // What crossed is the wire's manifest, and the move checks every file against it before the adapter reads one.
    const wire = ConversationManifest.parse(JSON.parse(JSON.stringify(manifest)));
    for (const f of wire.files)
      assert.deepEqual(await fileDigest(path.join(received, f.path)), { bytes: f.bytes, sha256: f.sha256 });
    const home = { env: b.env, baseEnv: process.env };
    const { sessionId: resumed } = await carrier.unpack({ home, workspace, dir: received, exec: realExec }, wire);
    assert.equal(resumed, sessionId);
    assert.equal(HARNESSES.codex.canResume!(home, resumed), true);

    // Leo's launch plan for a restart of the moved agent: `codex resume <id>`, with Leo's overrides. Its daemon is
    // not there: the hooks find no socket and step aside, the MCP server refuses; neither holds Codex up.
    const leoHome = path.join(b.dir, 'leo');
    const plan = planLaunch('codex', {
      agent: AGENT,
      workspace,
      model: HARNESS_MODEL,
      env: home.env,
      leo: {
        home: leoHome,
        agentDir: path.join(leoHome, 'state', 'agents', AGENT),
        mcpUrl: `http://127.0.0.1:9/api/agent/${AGENT}/mcp`,
        agentToken: 'leo_agent_tok_moved',
        leoBin: LEO_BIN,
        nodeBin: process.execPath,
        socketPath: path.join(leoHome, 'state', 'leo.sock'),
      },
      resume: true,
      resumeSessionId: resumed,
    });
    assert.deepEqual(plan.argv.slice(0, 3), ['codex', 'resume', sessionId]);
    await writePlannedFiles(plan.files);
    const env = Object.entries(plan.env).flatMap(([k, v]) => ['-e', `${k}=${v}`]);
    const tmux = (...args: string[]) => spawnSync('tmux', ['-S', socket, ...args], { encoding: 'utf8' });
    const argv = [found.bin, ...plan.argv.slice(1)];
    const r = tmux('new-session', '-d', '-s', 'moved', '-x', '200', '-y', '50', '-c', workspace, ...env, '--', ...argv);
    assert.equal(r.status, 0, r.stderr);
    const pane = () => tmux('capture-pane', '-p', '-J', '-t', '=moved:').stdout ?? '';
    const withPane = <T>(p: Promise<T>) =>
      p.catch((err) => {
        throw new Error(`${(err as Error).message}; pane:\n${pane()}`);
      });
    // Ready at once: no question at its terminal about which folder to resume in.
    const ready = () => {
      if (pane().includes('Working directory · resume')) throw new Error('codex asks which folder to resume in');
      return paneReady('codex', pane());
    };
    await withPane(until('the resumed codex to take input', ready, 30_000, 200));
    tmux('send-keys', '-t', '=moved:', '-l', 'what was the word?');
    await sleep(300);
    tmux('send-keys', '-t', '=moved:', 'Enter');
    const turn = await withPane(
      until(
        "the moved conversation's next turn",
        () => server.responseRequests().find((q) => userPrompts(q.body).some((p) => p.includes('what was the word?'))),
        30_000,
        200,
      ),
    );
    const input = JSON.stringify(turn.body.input);
    assert.ok(input.includes(`The secret word is ${SECRET}.`), 'the earlier answer is in context');
    assert.ok(input.includes('what is the secret word?'), 'the earlier prompt is in context');
    assert.ok(input.includes(`<cwd>${workspace}</cwd>`), 'Codex told the model of its new folder');
  });
});
