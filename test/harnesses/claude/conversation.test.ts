import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { claudeConversation } from '../../../src/harnesses/claude/conversation.js';
import { projectFolderName } from '../../../src/harnesses/claude/conversations.js';
import { renameSession } from '../../../src/harnesses/claude/session-rename.js';
import type { ConversationPlace } from '../../../src/harnesses/conversation.js';
import type { ConversationManifest } from '../../../src/wire/conversation-pack.js';
import { transcriptFixture } from '../../helpers/transcripts.js';

// plain.jsonl was recorded by claude 2.1.328 in this workspace, as this session.
const RECORDED_WS = '/tmp/rec/run-plain-7vVWsn/ws';
const RECORDED_ID = '1b55feca-a3e2-407f-a5ea-91a9443e71d7';
const recorded = () => fs.readFileSync(transcriptFixture('plain.jsonl'), 'utf8');

describe('the folder Claude keeps a workspace’s transcripts in', () => {
  it('is the path with every character but an ASCII letter or digit turned into -', () => {
    assert.equal(projectFolderName(RECORDED_WS), '-tmp-rec-run-plain-7vVWsn-ws');
    assert.equal(projectFolderName('/home/zoë/my project.v2'), '-home-zo--my-project-v2');
  });

  it('is cut at 200 characters with a hash of the whole path when longer, as claude 2.1.328 named one', () => {
    const long = `/tmp/leo-claude-JlEuzh/${'x'.repeat(120)}/${'y'.repeat(100)}`;
    const name = projectFolderName(long);
    assert.equal(name, `${long.replace(/[^a-zA-Z0-9]/g, '-').slice(0, 200)}-2j1pin`);
    assert.notEqual(name, projectFolderName(`${long}y`), 'paths sharing 200 characters get folders of their own');
  });
});

describe('renaming the session a transcript records', () => {
  it('changes every sessionId of the recorded transcript, and nothing else', () => {
    const text = recorded();
    const to = 'f00dfeed-0000-4000-8000-000000000001';
    const before = text.split('\n');
    const after = renameSession(text, RECORDED_ID, to).split('\n');
    assert.equal(after.length, before.length);
    assert.ok(
      before.some((l) => l.includes('"sessionId"')),
      'the fixture records its session id',
    );
    before.forEach((line, i) => {
      if (!line) return assert.equal(after[i], line);
      const was = JSON.parse(line);
      const now = JSON.parse(after[i]!);
      if ('sessionId' in was) assert.equal(now.sessionId, to);
      assert.deepEqual({ ...now, sessionId: was.sessionId }, was, `line ${i} keeps everything else`);
      assert.deepEqual(Object.keys(now), Object.keys(was), `line ${i} keeps its field order`);
    });
  });

  it('keeps another session’s line, a mention in the text and a line that is not JSON byte for byte', () => {
    const lines = [
      '{"sessionId":"s2","x":1}',
      '{"type":"user",  "message":"about s1"}',
      'not json "sessionId":"s1"',
      '{"sessionId":"s1","cwd":"/a"}',
    ];
    const out = renameSession(lines.join('\n'), 's1', 's9').split('\n');
    assert.deepEqual(out, [lines[0], lines[1], lines[2], '{"sessionId":"s9","cwd":"/a"}']);
  });
});

describe('packing and unpacking a Claude conversation', () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'leo-claude-conv-'));
  after(() => fs.rmSync(root, { recursive: true, force: true }));
  let n = 0;
  const noExec = async () => {
    throw new Error('the Claude carrier runs no program');
  };
  /** A host: its Claude dir (CLAUDE_CONFIG_DIR, or `.claude` under HOME), an agent workspace and a pack folder. */
  const host = (viaHome = false) => {
    const dir = path.join(root, `host-${++n}`);
    const workspace = path.join(dir, 'agents', 'den');
    fs.mkdirSync(workspace, { recursive: true });
    const cfg = path.join(dir, viaHome ? '.claude' : 'cfg');
    const place: ConversationPlace = {
      home: { env: viaHome ? { HOME: dir } : { CLAUDE_CONFIG_DIR: cfg }, baseEnv: {} },
      workspace,
      dir: path.join(root, `pack-${n}`),
      exec: noExec,
    };
    return { dir, place, cfg, folder: (ws = workspace) => path.join(cfg, 'projects', projectFolderName(ws)) };
  };
  type Host = ReturnType<typeof host>;
  /** The recorded transcript as Claude keeps it for `workspace`, with a sub-agent's transcript and a project memory. */
  const write = (h: Host, workspace = h.place.workspace) => {
    const folder = h.folder(workspace);
    fs.mkdirSync(path.join(folder, RECORDED_ID, 'subagents'), { recursive: true });
    fs.mkdirSync(path.join(folder, 'memory'), { recursive: true });
    fs.writeFileSync(path.join(folder, `${RECORDED_ID}.jsonl`), recorded());
    fs.writeFileSync(path.join(folder, RECORDED_ID, 'subagents', 'agent-a1.jsonl'), `{"sessionId":"${RECORDED_ID}"}\n`);
    fs.writeFileSync(path.join(folder, 'memory', 'MEMORY.md'), `notes of ${workspace}\n`);
    fs.writeFileSync(path.join(folder, 'other-session.jsonl'), '{}\n');
  };
  const sha256 = (file: string) => createHash('sha256').update(fs.readFileSync(file)).digest('hex');
  /** A conversation packed on a fresh source host, and a fresh target host reading the same pack folder. */
  const packed = async () => {
    const source = host();
    write(source);
    const manifest = await claudeConversation.pack(source.place, RECORDED_ID);
    const target = host();
    target.place.dir = source.place.dir;
    return { source, manifest, target };
  };

  it('packs the transcript, its session folder and the project memory, and unpacks them for the new workspace', async () => {
    const { source, manifest, target } = await packed();
    assert.equal(manifest.harness, 'claude');
    assert.equal(manifest.session_id, RECORDED_ID);
    assert.equal(manifest.workspace, fs.realpathSync(source.place.workspace));
    assert.deepEqual(
      manifest.files.map((f) => f.path),
      ['transcript.jsonl', 'session/subagents/agent-a1.jsonl', 'memory/MEMORY.md'],
    );
    for (const f of manifest.files) {
      const file = path.join(source.place.dir, f.path);
      assert.equal(f.bytes, fs.statSync(file).size);
      assert.equal(f.sha256, sha256(file));
    }

    const { sessionId } = await claudeConversation.unpack(target.place, manifest);
    assert.equal(sessionId, RECORDED_ID, 'an id the target has never seen is kept');
    const folder = target.folder();
    assert.equal(
      fs.readFileSync(path.join(folder, `${sessionId}.jsonl`), 'utf8'),
      recorded(),
      'the lines travel as they are',
    );
    assert.ok(fs.existsSync(path.join(folder, sessionId, 'subagents', 'agent-a1.jsonl')));
    assert.equal(
      fs.readFileSync(path.join(folder, 'memory', 'MEMORY.md'), 'utf8'),
      `notes of ${source.place.workspace}\n`,
    );
    assert.deepEqual(fs.readdirSync(path.join(target.cfg, 'projects')), [path.basename(folder)]);

    const again = await claudeConversation.unpack(target.place, manifest);
    assert.equal(again.sessionId, RECORDED_ID, 'unpacking the same pack again (a retried move) keeps the id');
  });

  it('gives the conversation a new id where the target holds another one of that id, and keeps its memory', async () => {
    const { manifest, target } = await packed();
    const elsewhere = path.join(target.dir, 'elsewhere');
    write(target, elsewhere);
    fs.mkdirSync(path.join(target.folder(), 'memory'), { recursive: true });
    fs.writeFileSync(path.join(target.folder(), 'memory', 'MEMORY.md'), 'the target’s own notes\n');
    const { sessionId } = await claudeConversation.unpack(target.place, manifest);
    assert.notEqual(sessionId, RECORDED_ID);
    const ids = (file: string) =>
      new Set(
        fs
          .readFileSync(file, 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l).sessionId)
          .filter(Boolean),
      );
    assert.deepEqual([...ids(path.join(target.folder(), `${sessionId}.jsonl`))], [sessionId]);
    assert.deepEqual([...ids(path.join(target.folder(), sessionId, 'subagents', 'agent-a1.jsonl'))], [sessionId]);
    assert.equal(fs.readFileSync(path.join(target.folder(elsewhere), `${RECORDED_ID}.jsonl`), 'utf8'), recorded());
    assert.equal(
      fs.readFileSync(path.join(target.folder(), 'memory', 'MEMORY.md'), 'utf8'),
      'the target’s own notes\n',
    );
  });

  it('finds Claude’s dir under HOME when no CLAUDE_CONFIG_DIR is set', async () => {
    const source = host(true);
    write(source);
    const manifest = await claudeConversation.pack(source.place, RECORDED_ID);
    const target = host(true);
    target.place.dir = source.place.dir;
    await claudeConversation.unpack(target.place, manifest);
    assert.ok(fs.existsSync(path.join(target.folder(), `${RECORDED_ID}.jsonl`)));
  });

  it('refuses a session Claude never wrote, another harness’s pack, and a file that is not Claude’s or escapes', async () => {
    await assert.rejects(claudeConversation.pack(host().place, RECORDED_ID), /no transcript/);
    const { manifest, target } = await packed();
    const refused = async (m: ConversationManifest, why: RegExp) => {
      await assert.rejects(claudeConversation.unpack(target.place, m), why);
      assert.ok(!fs.existsSync(path.join(target.cfg, 'projects')), 'nothing was written');
    };
    const extra = (p: string) => ({
      ...manifest,
      files: [...manifest.files, { path: p, bytes: 0, sha256: '0'.repeat(64) }],
    });
    await refused({ ...manifest, harness: 'codex' }, /not Claude's/);
    await refused(
      { ...manifest, files: manifest.files.filter((f) => f.path !== 'transcript.jsonl') },
      /no Claude transcript/,
    );
    await refused(extra('settings.json'), /not part of a Claude conversation/);
    await refused(extra('session'), /not part of a Claude conversation/);
    await refused(extra('session/../../../etc/passwd'), /a relative path inside the pack/);
    await refused({ ...manifest, session_id: '../x' }, /session_id/);
  });
});
