import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { fileURLToPath } from 'node:url';
import { codexConversation } from '../../../src/harnesses/codex/conversation.js';
import { repointPath, repointRolloutWorkspace } from '../../../src/harnesses/codex/rollout-workspace.js';
import { codexSessionExists } from '../../../src/harnesses/codex/sessions.js';
import type { ConversationPlace } from '../../../src/harnesses/conversation.js';
import { ConversationManifest } from '../../../src/wire/conversation-pack.js';

// A codex 0.171.0 `exec` rollout of two turns, recorded in workspace FROM.
const FIXTURE = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../../../../test/fixtures/codex-rollouts/exec-two-turns.jsonl',
);
const ID = '01a23304-1ea3-7df2-9bcc-d245a6f034c9';
const NAME = `rollout-2026-12-01T19-10-37-${ID}.jsonl`;
const FROM = '/tmp/m18c/ws-JFCAPb';
const TO = '/home/bob/.leo/agents/mover';

const lines = (text: string) => text.split('\n').filter(Boolean);
const parsed = (text: string) => lines(text).map((l) => JSON.parse(l));

describe('a codex rollout re-pointed at its new workspace', () => {
  it('a path that is the workspace or under it moves; a sibling that shares its prefix does not', () => {
    assert.equal(repointPath(FROM, FROM, TO), TO);
    assert.equal(repointPath(`${FROM}/src/app`, FROM, TO), `${TO}/src/app`);
    assert.equal(repointPath(`${FROM}/src`, `${FROM}/`, `${TO}/`), `${TO}/src`);
    assert.equal(repointPath(`${FROM}2`, FROM, TO), `${FROM}2`);
    assert.equal(repointPath('/elsewhere', FROM, TO), '/elsewhere');
  });

  it('moves the settings codex restores; what the model was sent, and every other line, stay byte for byte', () => {
    const before = fs.readFileSync(FIXTURE, 'utf8');
    const after = repointRolloutWorkspace(before, FROM, TO);
    const records = parsed(after);
    const meta = records.find((o) => o.type === 'session_meta');
    assert.equal(meta.payload.cwd, TO);
    assert.deepEqual(meta.payload.runtime_workspace_roots, [TO]);
    assert.equal(meta.payload.id, ID, 'the rest of the line is kept');
    assert.deepEqual(
      records.filter((o) => o.type === 'turn_context').map((o) => o.payload.cwd),
      [TO, TO],
    );
    // The folder `codex resume` compares with its own: re-pointed, it asks nothing.
    const settings = records.filter((o) => o.payload.type === 'thread_settings_applied');
    assert.deepEqual(
      settings.map((o) => [o.payload.thread_settings.cwd, o.payload.thread_settings.runtime_workspace_roots]),
      [
        [TO, [TO]],
        [TO, [TO]],
      ],
    );
    const [was, now] = [lines(before), lines(after)];
    assert.equal(now.length, was.length);
    const changed = was.flatMap((l, i) => (l === now[i] ? [] : [JSON.parse(l).type]));
    assert.deepEqual(changed, ['session_meta', 'turn_context', 'event_msg', 'event_msg', 'turn_context']);
    assert.ok(after.includes(`<cwd>${FROM}</cwd>`), 'what the model was sent is history, left as it was');
    assert.equal(repointRolloutWorkspace(before, FROM, FROM), before);
    assert.equal(repointRolloutWorkspace(before, '/elsewhere', TO), before);
  });
});

describe('codex conversation carrier', () => {
  function place(t: TestContext, label: string, workspace: string): ConversationPlace & { codexHome: string } {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), `leo-codex-conv-${label}-`));
    t.after(() => fs.rmSync(root, { recursive: true, force: true }));
    const codexHome = path.join(root, 'codex-home');
    const dir = path.join(root, 'pack');
    fs.mkdirSync(dir, { recursive: true });
    return {
      codexHome,
      home: { env: { CODEX_HOME: codexHome }, baseEnv: { HOME: path.join(root, 'nobody') } },
      workspace,
      dir,
      exec: () => Promise.reject(new Error('codex carries its rollout without running anything')),
    };
  }

  it('packs the rollout with its size and sha256, and unpacks it into the target CODEX_HOME re-pointed', async (t) => {
    const source = place(t, 'source', FROM);
    const day = path.join(source.codexHome, 'sessions', '2026', '12', '01');
    fs.mkdirSync(day, { recursive: true });
    fs.copyFileSync(FIXTURE, path.join(day, NAME));
    // Codex midway through a line (a copy's source keeps running): the pack ends with the last whole one.
    fs.appendFileSync(path.join(day, NAME), '{"timestamp":"2026-12-01T19:11:00.000Z","type":"event_');
    const manifest = await codexConversation.pack(source, ID);
    assert.deepEqual(ConversationManifest.parse(manifest), manifest);
    assert.equal(manifest.harness, 'codex');
    assert.equal(manifest.workspace, FROM);
    assert.deepEqual(
      manifest.files.map((f) => [f.path, f.bytes]),
      [[NAME, fs.statSync(FIXTURE).size]],
    );
    assert.match(manifest.files[0]!.sha256, /^[0-9a-f]{64}$/);

    const target = place(t, 'target', TO);
    fs.cpSync(source.dir, target.dir, { recursive: true });
    assert.deepEqual(await codexConversation.unpack(target, manifest), { sessionId: ID });
    const landed = path.join(target.codexHome, 'sessions', '2026', '12', '01', NAME);
    assert.equal(parsed(fs.readFileSync(landed, 'utf8'))[0].payload.cwd, TO);
    assert.equal(codexSessionExists(path.join(target.codexHome, 'sessions'), ID), true);
    assert.deepEqual(fs.readdirSync(path.dirname(landed)), [NAME], 'nothing else left beside it');
  });

  it('a session codex never wrote travels as no file, and resumes as a new one', async (t) => {
    const source = place(t, 'unwritten', FROM);
    const manifest = await codexConversation.pack(source, ID);
    assert.deepEqual(manifest.files, []);
    const target = place(t, 'unwritten-target', TO);
    assert.deepEqual(await codexConversation.unpack(target, manifest), { sessionId: ID });
    assert.equal(fs.existsSync(path.join(target.codexHome, 'sessions')), false);
  });

  it("refuses another harness's pack, and files that are not this session's rollout", async (t) => {
    const target = place(t, 'refusing', TO);
    const file = { path: NAME, bytes: 1, sha256: '0'.repeat(64) };
    const base: ConversationManifest = { version: 1, harness: 'codex', session_id: ID, workspace: FROM, files: [file] };
    const refusals: [ConversationManifest, RegExp][] = [
      [{ ...base, harness: 'claude' }, /claude's, not codex's/],
      [{ ...base, files: [file, file] }, /more than one file/],
      [{ ...base, files: [{ ...file, path: 'sessions/../../config.toml' }] }, /not the rollout of session/],
      [{ ...base, files: [{ ...file, path: NAME.replace(ID, 'another') }] }, /not the rollout of session/],
      [{ ...base, files: [{ ...file, path: 'history.jsonl' }] }, /not the rollout of session/],
    ];
    for (const [manifest, why] of refusals)
      await assert.rejects(codexConversation.unpack(target, manifest), (err: Error & { statusCode?: number }) => {
        assert.match(err.message, why);
        assert.equal(err.statusCode, 400);
        return true;
      });
    assert.equal(fs.existsSync(target.codexHome), false, 'nothing written');
  });
});
