// opencode's conversation carried to another machine (issue 32) with the real CLI: one opencode data home has a turn
// in which the scripted model says a secret word; the adapter's carrier packs the session there (opencode's own
// export) and unpacks it into a second data home, for a workspace at another path (opencode's own import). opencode
// there resumes the session by the id unpack answered (`--session`, as Leo's launch plan resumes one), and the
// scripted model checks that the next turn's request carries the earlier one.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { realExec } from '../../src/core/exec.js';
import type { ConversationPlace } from '../../src/harnesses/conversation.js';
import { HARNESSES } from '../../src/harnesses/index.js';
import { HARNESS_MODEL } from '../helpers/harness-agent.js';
import { lastUserText, OpenAiServer, type RecordedRequest } from '../helpers/openai-server.js';
import { findOpencode, opencodeSandbox, type OpencodeSandbox } from '../helpers/opencode-cli.js';
import { endProcessesIn } from '../helpers/strays.js';

const SECRET = 'MARMALADE-7731';
const TELL = 'TELL-SECRET: what is the secret word?';
const RECALL = 'RECALL-SECRET: which word did you tell me?';

/** opencode's own side request (the session's title) carries no tools; only the agent's turns do. */
const agentTurn = (req: RecordedRequest) => Array.isArray(req.body?.tools) && req.body.tools.length > 0;
const carriesSecret = (req: RecordedRequest) => JSON.stringify(req.body.messages).includes(SECRET);

describe('opencode conversation moved to another data home (real CLI)', () => {
  it('resumes there with the earlier turn in the model request', { timeout: 300_000 }, async (t) => {
    const found = await findOpencode();
    if ('missing' in found) return t.skip(found.missing);
    const started = Date.now();
    const lap = (what: string) => t.diagnostic(`${what} at ${((Date.now() - started) / 1000).toFixed(1)} s`);
    const server = await OpenAiServer.start({
      script: (req) => {
        if (!agentTurn(req)) return { text: 'A title' };
        const prompt = lastUserText(req.body) ?? '';
        if (prompt.includes('TELL-SECRET')) return { text: `The secret word is ${SECRET}.` };
        if (prompt.includes('RECALL-SECRET')) return { text: carriesSecret(req) ? 'I remember it.' : 'I forgot.' };
        return undefined;
      },
    });
    const boxes: OpencodeSandbox[] = [];
    t.after(async () => {
      await server.close();
      for (const box of boxes) {
        await endProcessesIn(box.dir);
        box.cleanup();
      }
    });
    const home = (workspaceUnder: string) => {
      const box = opencodeSandbox({ baseUrl: server.baseUrl, model: HARNESS_MODEL, userDeps: found.userDeps });
      boxes.push(box);
      const env = { ...box.env, PATH: [path.dirname(found.bin), process.env.PATH].join(path.delimiter) };
      const workspace = path.join(box.dir, workspaceUnder, 'project');
      fs.mkdirSync(workspace, { recursive: true });
      return { box, env, workspace };
    };
    // opencode joins a message's words with spaces and quotes a word that holds one (headless.ts): one word each.
    // Not a sync spawn: the scripted model answers from this process. Stdin closed: `run` would wait to read it.
    const run = async (at: { env: Record<string, string>; workspace: string }, args: string[]) => {
      const r = await realExec(found.bin, args, {
        cwd: at.workspace,
        // opencode takes its folder from PWD before its cwd.
        env: { ...process.env, ...at.env, PWD: at.workspace },
        timeoutMs: 150_000,
        input: '',
      });
      assert.equal(r.code, 0, `opencode ${args.join(' ')}: ${r.stderr}`);
      return r.stdout;
    };

    // The source: a turn in which the model says the secret word.
    const source = home('laptop');
    const told = await run(source, ['run', '--format', 'json', '-m', source.box.model, '--', ...TELL.split(' ')]);
    const sessionId = told.match(/"sessionID":"(ses_[^"]+)"/)?.[1];
    assert.ok(sessionId, `a session id in opencode run's events: ${told}`);
    lap('the first turn');

    const carrier = HARNESSES.opencode.conversation!;
    const place = (at: typeof source, dir: string): ConversationPlace => ({
      home: { env: at.env, baseEnv: process.env },
      workspace: at.workspace,
      dir,
      exec: realExec,
    });
    const packDir = path.join(source.box.dir, 'pack');
    fs.mkdirSync(packDir);
    const manifest = await carrier.pack(place(source, packDir), sessionId);
    assert.equal(manifest.harness, 'opencode');
    assert.equal(manifest.workspace, source.workspace);
    assert.ok(fs.readFileSync(path.join(packDir, manifest.files[0]!.path), 'utf8').includes(SECRET));
    lap('packed');

    // The target: another data home, the workspace at another path; the pack crossed as it is.
    const target = home('desktop/elsewhere');
    const arrived = path.join(target.box.dir, 'arrived');
    fs.cpSync(packDir, arrived, { recursive: true });
    const { sessionId: resumed } = await carrier.unpack(place(target, arrived), manifest);
    lap('unpacked');

    const recalled = await run(target, [
      'run',
      '-m',
      target.box.model,
      '--session',
      resumed,
      '--',
      ...RECALL.split(' '),
    ]);
    const recall = server.completionRequests().find((r) => agentTurn(r) && lastUserText(r.body)?.includes('RECALL'));
    assert.ok(recall, 'the resumed turn reached the model');
    assert.ok(carriesSecret(recall), 'the resumed turn carried the earlier one');
    // opencode runs a session in the folder it has on record and tells the model which: the target's workspace.
    const system = JSON.stringify(recall.body.messages.filter((m: { role: string }) => m.role === 'system'));
    assert.ok(system.includes(target.workspace), `the resumed turn runs in the target's workspace: ${system}`);
    assert.ok(!system.includes(source.workspace), "nothing of it runs in the source's workspace");
    assert.match(recalled, /I remember it\./);
    lap('resumed');
  });
});
