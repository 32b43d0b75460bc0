import assert from 'node:assert/strict';
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
  const file = { path: 'session.json', bytes: 2, sha256: 'a'.repeat(64) };
  const manifest = (over: Partial<ConversationManifest>) =>
    ({
      version: 1,
      harness: 'opencode',
      session_id: SES,
      workspace: '/src/ws',
      files: [file],
      ...over,
    }) as ConversationManifest;

  for (const [why, m, error] of [
    ["another harness's pack", manifest({ harness: 'claude' }), /not opencode's/],
    ['a file that escapes the pack', manifest({ files: [{ ...file, path: '../session.json' }] }), /inside the pack/],
    ['files other than the export', manifest({ files: [file, { ...file, path: 'other.json' }] }), /alone/],
    ['a relative source workspace', manifest({ workspace: 'ws' }), /relative/],
    ['a target workspace not there yet', manifest({}), /not there yet/],
  ] as const) {
    it(why, async () => {
      const at = why.includes('not there') ? { ...place, workspace: path.join(dir, 'missing') } : place;
      await assert.rejects(opencodeConversation.unpack(at, m), error);
    });
  }
});
