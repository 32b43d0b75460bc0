import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { ErrorEnvelope } from '../../src/http/envelope.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { OpenAiServer, lastUserText } from '../helpers/openai-server.js';
import { TRAVERSALS, hostileString, wellFormed } from './arbitraries.js';
import { fuzzParams } from './fuzz-params.js';
import { literalPath, percentEncode, send, type RawResponse } from './raw-http.js';

const OUTSIDE_SECRET = 'OUTSIDE-SECRET-5e7d';

function assertRefusal(r: RawResponse, label: string): void {
  assert.ok(r.status >= 400 && r.status < 500, `${label} → ${r.status} ${r.text.slice(0, 200)}`);
  assert.ok(ErrorEnvelope.safeParse(JSON.parse(r.text)).success, `${label}: ${r.text.slice(0, 200)}`);
}

/** Every file below `dir`, as paths relative to it. */
function filesUnder(dir: string): string[] {
  return (fs.readdirSync(dir, { recursive: true, withFileTypes: true }) as fs.Dirent[])
    .filter((e) => !e.isDirectory())
    .map((e) => path.relative(dir, path.join(e.parentPath, e.name)));
}

describe('fuzz: path traversal through the real listeners (uploads, attachments, @-mentions, workspace tools)', () => {
  let t: TestDaemon;
  let llm: OpenAiServer;
  let workspace: string;
  let attachmentsRoot: string;
  let outside: string;
  let before0: Set<string>;
  /** Values a hostile client must never see in anything a model is sent. */
  let secrets: string[];
  const json = { 'content-type': 'application/json' };

  before(async () => {
    llm = await OpenAiServer.start({ defaultReply: { text: 'ok' } });
    t = await startTestDaemon({
      config: `
environments:
  keys: { OPENAI_KEY: sk-fuzz-env-secret }
templates:
  bot:
    harness: shell
    command: "exec cat >/dev/null"
    environments: [keys]
    chat: { enabled: true, engine: openai, base_url: "${llm.baseUrl}", api_key_env: OPENAI_KEY, model: gpt-test }
`,
    });
    const spawned = await send(t.socket, {
      method: 'POST',
      path: '/api/v1/agents/spawn',
      headers: json,
      body: JSON.stringify({ template: 'bot', name: 'bot' }),
    });
    assert.equal(spawned.status, 201, spawned.text);
    workspace = JSON.parse(spawned.text).data.workspace;
    attachmentsRoot = path.join(t.daemon.paths.stateDir, 'chat', 'attachments');
    outside = fs.mkdtempSync(path.join(path.dirname(t.home), 'leo-fuzz-outside-'));
    fs.writeFileSync(path.join(outside, 'secret.txt'), OUTSIDE_SECRET);
    fs.mkdirSync(path.join(workspace, 'docs'), { recursive: true });
    fs.writeFileSync(path.join(workspace, 'docs', 'plan.md'), 'the plan\n');
    const state = t.daemon.paths.stateDir;
    for (const [name, target] of [
      ['token-link', t.daemon.paths.operatorTokenFile],
      ['agent-token-link', t.daemon.paths.agentTokenFile],
      ['state-link', state],
      ['db-link', t.daemon.paths.database],
      ['config-link', t.daemon.paths.configFile],
      ['out-link', path.join(outside, 'secret.txt')],
      ['out-dir-link', outside],
      ['docs/up-link', '../..'],
    ])
      fs.symlinkSync(target!, path.join(workspace, name!));
    // leo.yaml holds environment values: the model may be sent the key in a header, never the file in a prompt.
    secrets = [t.daemon.operatorToken, t.daemon.agentToken, 'sk-fuzz-env-secret'];
    before0 = new Set(filesUnder(t.home));
  });
  after(async () => {
    await t.stop();
    await llm.close();
    fs.rmSync(outside, { recursive: true, force: true });
  });

  it('uploads: any filename and agent either fail with a 4xx or land as one plain file inside the attachments folder', async () => {
    const filename = fc.oneof(
      hostileString,
      fc.constantFrom(...TRAVERSALS),
      fc
        .array(fc.constantFrom('..', '.', '/', '\\', 'a', '%2f', '%00', '😀', ' '), { minLength: 1, maxLength: 8 })
        .map((p) => p.join('')),
    );
    const outcomes = { stored: 0, refused: 0 };
    const agent = fc.option(fc.oneof(fc.constant('bot'), fc.constantFrom(...TRAVERSALS), hostileString), {
      nil: undefined,
    });
    await fc.assert(
      fc.asyncProperty(
        filename,
        fc.boolean(),
        agent,
        fc.uint8Array({ maxLength: 64 }),
        async (name, literal, who, bytes) => {
          const query = [`filename=${literal ? literalPath(name) || '%00' : percentEncode(name)}`];
          if (who !== undefined) query.push(`agent=${percentEncode(who)}`);
          const r = await send(t.socket, {
            method: 'POST',
            path: `/api/v1/chat/uploads?${query.join('&')}`,
            body: Buffer.from(bytes),
          });
          if (r.status !== 201) {
            outcomes.refused++;
            return assertRefusal(r, `upload ${JSON.stringify(name)} for ${JSON.stringify(who)}`);
          }
          outcomes.stored++;
          const ref = JSON.parse(r.text).data as { id: string; filename: string; bytes: number };
          assert.doesNotMatch(ref.filename, /[\\/\u0000-\u001f]/);
          assert.doesNotMatch(ref.filename, /^\./);
          assert.ok(wellFormed(ref.filename) && Buffer.byteLength(ref.filename) <= 200, ref.filename);
          const file = path.join(attachmentsRoot, who ?? '_unclaimed', ref.id, ref.filename);
          assert.ok(fs.realpathSync(file).startsWith(attachmentsRoot + path.sep), file);
          assert.deepEqual(fs.readFileSync(file), Buffer.from(bytes));
          if (who === undefined) return;
          const back = await send(t.socket, { method: 'GET', path: `/api/v1/chat/${who}/attachments/${ref.id}` });
          assert.equal(back.status, 200, back.text);
          assert.equal(back.text, Buffer.from(bytes).toString('utf8'));
          assert.equal(
            decodeURIComponent(/filename\*=UTF-8''(.*)$/.exec(String(back.headers['content-disposition']))![1]!),
            ref.filename,
          );
        },
      ),
      fuzzParams(250),
    );
    assert.ok(outcomes.stored > 0 && outcomes.refused > 0, JSON.stringify(outcomes));
    // Nothing the uploads did wrote anywhere but the attachments folder.
    const stray = filesUnder(t.home).filter(
      (f) => !before0.has(f) && !path.join(t.home, f).startsWith(attachmentsRoot + path.sep),
    );
    assert.deepEqual(
      stray.filter((f) => !/\.(db|db-wal|db-shm|log)$/.test(f)),
      [],
    );
  });

  it('an empty upload is an empty file, not a crash (regression: a bodiless request left a write stream to fail unhandled)', async () => {
    for (const body of [undefined, '']) {
      const r = await send(t.socket, {
        method: 'POST',
        path: '/api/v1/chat/uploads?filename=empty.txt&agent=bot',
        body,
      });
      assert.equal(r.status, 201, r.text);
      const ref = JSON.parse(r.text).data;
      assert.equal(ref.bytes, 0);
      assert.equal(fs.statSync(path.join(attachmentsRoot, 'bot', ref.id, 'empty.txt')).size, 0);
    }
    assert.equal((await send(t.socket, { method: 'GET', path: '/health' })).status, 200);
  });

  it('attachment ids and agents that climb, are absolute or carry NUL bytes are refused', async () => {
    const part = fc.oneof(fc.constantFrom(...TRAVERSALS), hostileString, fc.constant('bot'));
    await fc.assert(
      fc.asyncProperty(part, part, fc.boolean(), async (agent, id, literal) => {
        const enc = literal ? (s: string) => literalPath(s) || '%00' : percentEncode;
        fc.pre(agent !== 'bot' || id !== 'bot');
        const r = await send(t.tcp, {
          method: 'GET',
          path: `/api/v1/chat/${enc(agent)}/attachments/${enc(id)}`,
          headers: { authorization: `Bearer ${t.daemon.operatorToken}` },
        });
        assertRefusal(r, `${agent} / ${id}`);
      }),
      fuzzParams(300),
    );
  });

  it('@-mentions and the workspace tools, driven through the chat endpoint: Leo state never reaches the model', async () => {
    const mentionable = [
      'docs/plan.md',
      'docs',
      'token-link',
      'agent-token-link',
      'state-link',
      'state-link/api.token',
      'db-link',
      'config-link',
      'out-link',
      'out-dir-link',
      'docs/up-link',
      'docs/up-link/state/api.token',
    ];
    const target = fc.oneof(
      { weight: 4, arbitrary: fc.constantFrom(...mentionable) },
      fc.constantFrom(...TRAVERSALS),
      fc.constantFrom(
        t.daemon.paths.operatorTokenFile,
        t.daemon.paths.stateDir,
        t.daemon.paths.configFile,
        path.join(outside, 'secret.txt'),
      ),
      hostileString,
    );
    const message = fc
      .array(
        fc.oneof(
          target.map((p) => `@${p}`),
          target.map((p) => `@"${p}"`),
          hostileString,
        ),
        { minLength: 1, maxLength: 4 },
      )
      .map((parts) => `look at ${parts.join(' ')}`);
    // Counted so the property cannot pass by never attaching or reading anything at all.
    const reached = { attached: 0, read: 0 };
    await fc.assert(
      fc.asyncProperty(message, target, target, async (text, readPath, listPath) => {
        // The model asks for files too: the same paths through read_file and list_dir.
        llm.enqueue(
          {
            toolCalls: [
              { name: 'read_file', arguments: { path: readPath } },
              { name: 'list_dir', arguments: { dir: listPath } },
            ],
          },
          { text: 'done' },
        );
        const seen = llm.completionRequests().length;
        const r = await send(t.tcp, {
          method: 'POST',
          path: '/agents/bot/chat',
          headers: { ...json, authorization: `Bearer ${t.daemon.operatorToken}` },
          body: JSON.stringify({ message: text }),
        });
        assert.equal(r.status, 200, r.text);
        const sent = llm.completionRequests().slice(seen);
        assert.equal(sent.length, 2, 'one call with the mentions, one with the tool results');
        const userText = lastUserText(sent[0]!.body) ?? '';
        const toolResults = JSON.stringify(sent[1]!.body.messages.filter((m: { role: string }) => m.role === 'tool'));
        for (const secret of secrets) {
          assert.ok(!userText.includes(secret), `${JSON.stringify(text)} attached a token`);
          assert.ok(
            !toolResults.includes(secret),
            `read_file ${JSON.stringify(readPath)} / list_dir ${JSON.stringify(listPath)} showed a token`,
          );
        }
        assert.ok(
          !toolResults.includes(OUTSIDE_SECRET),
          `read_file ${JSON.stringify(readPath)} read outside the workspace`,
        );
        if (userText.includes('<veil-attachments>')) reached.attached++;
        if (toolResults.includes('the plan')) reached.read++;
      }),
      fuzzParams(100),
    );
    assert.ok(reached.attached > 0 && reached.read > 0, JSON.stringify(reached));
  });
});
