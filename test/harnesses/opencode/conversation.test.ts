import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import type { Exec } from '../../../src/core/exec.js';
import type { ConversationPlace } from '../../../src/harnesses/conversation.js';
import { opencodeConversation } from '../../../src/harnesses/opencode/conversation.js';
import { movedPath, rehomeExport } from '../../../src/harnesses/opencode/session-export.js';
import type { ConversationManifest } from '../../../src/wire/conversation-pack.js';

const SES = 'ses_1a2b3c4d5e6fAbCdEfGhIjKlMn';
const USER = 'msg_0a1b2c3d4e5fAAAAAAAAAAAAAA';
const REPLY = 'msg_0a1b2c3d4e60BBBBBBBBBBBBBB';
const PART = 'prt_0a1b2c3d4e61CCCCCCCCCCCCCC';

/** An export as opencode 1.18.33 prints one, cut to the fields the rewrite touches plus a few it must not. */
const exported = () =>
  JSON.stringify({
    info: {
      id: SES,
      slug: 'brave-cat',
      directory: '/src/ws',
      title: 'Secret',
      workspaceID: 'wrk_0a1b2c3d4e5fDDDDDDDDDDDDDD',
      share: { url: 'https://opncd.ai/s/abc' },
    },
    messages: [
      { info: { id: USER, sessionID: SES, role: 'user' }, parts: [] },
      {
        info: {
          id: REPLY,
          sessionID: SES,
          role: 'assistant',
          parentID: USER,
          path: { cwd: '/src/ws/sub', root: '/src' },
        },
        parts: [{ id: PART, sessionID: SES, messageID: REPLY, type: 'text', text: `say ${SES} and /src/ws` }],
      },
    ],
  });

const file = { path: 'session.json', bytes: 2, sha256: 'a'.repeat(64) };
/** A manifest as the target gets it, its files already checked against it. */
const manifest = (over: Partial<ConversationManifest> = {}): ConversationManifest => ({
  version: 1,
  harness: 'opencode',
  session_id: SES,
  workspace: '/src/ws',
  files: [file],
  ...over,
});

describe('an opencode export rehomed for another machine', () => {
  it('gives every id a fresh random tail, keeping its kind and time, and every reference follows', () => {
    const { text, sessionId } = rehomeExport(exported(), { workspace: '/src/ws' }, { workspace: '/dst/ws' });
    const out = JSON.parse(text);
    assert.equal(out.info.id, sessionId);
    for (const [old, now] of [
      [SES, sessionId],
      [USER, out.messages[0].info.id],
      [REPLY, out.messages[1].info.id],
      [PART, out.messages[1].parts[0].id],
    ]) {
      assert.notEqual(now, old);
      assert.equal(now.length, old.length);
      assert.equal(now.slice(0, -14), old.slice(0, -14), 'the kind and time part stay, so the order does');
    }
    const [user, reply] = out.messages;
    assert.equal(user.info.sessionID, sessionId);
    assert.equal(reply.info.parentID, user.info.id);
    assert.equal(reply.parts[0].messageID, reply.info.id);
    assert.equal(reply.parts[0].sessionID, sessionId);
    assert.equal(reply.parts[0].text, `say ${SES} and /src/ws`, 'what was said is left as it was');
    assert.equal(out.info.slug, 'brave-cat');
  });

  it('re-points the working folders recorded under the source workspace, and nothing outside it', () => {
    const out = JSON.parse(rehomeExport(exported(), { workspace: '/src/ws' }, { workspace: '/dst/ws' }).text);
    assert.deepEqual(out.messages[1].info.path, { cwd: '/dst/ws/sub', root: '/src' });
  });

  it('leaves behind what ties the session to the source host: its opencode workspace and share link', () => {
    const { info } = JSON.parse(rehomeExport(exported(), { workspace: '/a' }, { workspace: '/b' }).text);
    assert.equal(info.workspaceID, undefined);
    assert.equal(info.share, undefined);
    assert.equal(info.title, 'Secret');
  });

  it('two rehomings of one export are two sessions', () => {
    const a = rehomeExport(exported(), { workspace: '/a' }, { workspace: '/b' });
    const b = rehomeExport(exported(), { workspace: '/a' }, { workspace: '/b' });
    assert.notEqual(a.sessionId, b.sessionId);
  });

  it('refuses what is not an export', () => {
    assert.throws(() => rehomeExport('{"info":{"id":"nope"},"messages":[]}', { workspace: '/a' }, { workspace: '/b' }));
    assert.throws(() => rehomeExport('not json', { workspace: '/a' }, { workspace: '/b' }));
  });

  it('movedPath moves the folder and what is inside it only', () => {
    assert.equal(movedPath('/src/ws', '/src/ws', '/dst'), '/dst');
    assert.equal(movedPath('/src/ws/a/b', '/src/ws/', '/dst/'), '/dst/a/b');
    assert.equal(movedPath('/src/wsx', '/src/ws', '/dst'), '/src/wsx');
  });
});

describe('opencode conversation unpack refuses', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'leo-oc-conv-'));
  after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const noExec: Exec = async () => assert.fail('nothing runs for a refused pack');
  const place: ConversationPlace = { home: { env: {}, baseEnv: {} }, workspace: dir, dir, exec: noExec };
  for (const [why, m, error] of [
    ["another harness's pack", manifest({ harness: 'claude' }), /not opencode's/],
    ['a file that escapes the pack', manifest({ files: [{ ...file, path: '../session.json' }] }), /inside the pack/],
    ['files other than the export', manifest({ files: [file, { ...file, path: 'other.json' }] }), /alone/],
    ['a relative source workspace', manifest({ workspace: 'ws' }), /relative/],
    ['a target workspace not there yet', manifest(), /not there yet/],
  ] as const) {
    it(why, async () => {
      const at = why.includes('not there') ? { ...place, workspace: path.join(dir, 'missing') } : place;
      await assert.rejects(opencodeConversation.unpack(at, m), error);
    });
  }
});

describe('opencode conversation through its CLI (a recorded exec)', () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'leo-oc-conv-'));
  after(() => fs.rmSync(root, { recursive: true, force: true }));
  const home = { env: { XDG_DATA_HOME: '/agent/data' }, baseEnv: { XDG_DATA_HOME: '/daemon/data', PWD: '/daemon' } };

  it("packs opencode's export of the session, in the agent's workspace and data, described by size and sha256", async () => {
    const [workspace, dir] = ['ws', 'pack'].map((d) => fs.mkdirSync(path.join(root, d), { recursive: true })!);
    const calls: { file: string; args: readonly string[]; cwd?: string; env?: NodeJS.ProcessEnv }[] = [];
    const exec: Exec = async (file, args, opts = {}) => {
      calls.push({ file, args, cwd: opts.cwd, env: opts.env });
      fs.writeFileSync(args.at(-1)!, exported());
      return { code: 0, stdout: '', stderr: `Exporting session: ${SES}\n` };
    };
    const manifest = await opencodeConversation.pack({ home, workspace: workspace!, dir: dir!, exec }, SES);
    const bytes = Buffer.from(exported());
    assert.deepEqual(manifest, {
      version: 1,
      harness: 'opencode',
      session_id: SES,
      workspace,
      files: [{ path: 'session.json', bytes: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') }],
    });
    assert.deepEqual(calls[0]!.args.slice(-2), [SES, path.join(dir!, 'session.json')]);
    assert.match(calls[0]!.args[1]!, /opencode export --pure "\$1" > "\$2"/);
    assert.equal(calls[0]!.cwd, workspace);
    assert.equal(calls[0]!.env!.XDG_DATA_HOME, '/agent/data', "the agent's opencode data");
    assert.equal(calls[0]!.env!.PWD, workspace, 'opencode takes its folder from PWD');
  });

  it('imports the rehomed export in the target workspace and answers its new session id', async () => {
    const [workspace, dir] = ['target-ws', 'arrived'].map((d) =>
      fs.mkdirSync(path.join(root, d), { recursive: true })!,
    );
    fs.writeFileSync(path.join(dir!, 'session.json'), exported());
    let imported: any;
    const exec: Exec = async (file, args, opts = {}) => {
      assert.equal(file, 'opencode');
      assert.deepEqual(args.slice(0, 2), ['import', '--pure']);
      assert.equal(opts.cwd, workspace);
      assert.equal(opts.env!.PWD, workspace);
      imported = JSON.parse(fs.readFileSync(args[2]!, 'utf8'));
      return { code: 0, stdout: `Imported session: ${imported.info.id}\n`, stderr: '' };
    };
    const { sessionId } = await opencodeConversation.unpack(
      { home, workspace: workspace!, dir: dir!, exec },
      manifest(),
    );
    assert.equal(imported.info.id, sessionId);
    assert.notEqual(sessionId, SES);
    assert.equal(imported.messages[1].info.path.cwd, `${workspace}/sub`);
    assert.deepEqual(fs.readdirSync(dir!), ['session.json'], 'the pack is left as it came');
  });

  it('fails with what opencode said when its import does', async () => {
    const [workspace, dir] = ['ws3', 'arrived3'].map((d) => fs.mkdirSync(path.join(root, d), { recursive: true })!);
    fs.writeFileSync(path.join(dir!, 'session.json'), exported());
    const exec: Exec = async () => ({ code: 1, stdout: '', stderr: 'Error: database is locked\n' });
    await assert.rejects(
      opencodeConversation.unpack({ home, workspace: workspace!, dir: dir!, exec }, manifest()),
      /opencode import failed: Error: database is locked/,
    );
  });
});
