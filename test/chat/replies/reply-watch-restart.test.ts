// ReplyWatch over chat.db and real recorded transcripts, with the capture the worker pool runs: what it posts when the
// daemon restarts between a prompt and the end of its turn (issue 14 item 8), and when a turn's Stop comes while its
// message is still being typed (item 11), and a failed turn's note (issue 27).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { ReplyStore } from '../../../src/chat/replies/reply-store.js';
import { ReplyWatch } from '../../../src/chat/replies/reply-watch.js';
import type { TranscriptFormat } from '../../../src/harnesses/transcript-format.js';
import { ManualClock } from '../../../src/core/clock.js';
import { createLogger } from '../../../src/core/logger.js';
import { openDatabase, type Database } from '../../../src/store/database.js';
import { captureReplyTask } from '../../../workers/reply-capture.js';
import { freshTranscriptLines, promptIdOf, writeTranscript } from '../../helpers/transcripts.js';
import { until } from '../../helpers/wait.js';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'leo-reply-restart-'));
after(() => fs.rmSync(root, { recursive: true, force: true }));

/** One daemon life: a watch on the home's chat.db; `posted` lists what it posted, as [text, reply_to]. */
function daemonLife(home: string, posted: [string, string][], opened: Opened, format: TranscriptFormat) {
  const db = openDatabase(path.join(home, 'chat.db'));
  opened.dbs.push(db);
  const watch = new ReplyWatch({
    clock: new ManualClock(Date.now()),
    logger: createLogger('silent'),
    store: new ReplyStore(db),
    exists: () => true,
    format: () => format,
    capture: captureReplyTask,
    postedAfter: () => false,
    post: (_agent, text, replyTo) => void posted.push([text, replyTo]),
    unanswered: (_agent, id, why) =>
      void posted.push([why === 'interrupted' ? '(interrupted)' : `(failed) ${why.failure.text}`, id]),
  });
  opened.watches.push(watch);
  return watch;
}

/** What one home's lives opened: the watches close before their databases, as in the daemon's shutdown. */
type Opened = { dbs: Database[]; watches: ReplyWatch[] };

function home() {
  const dir = fs.mkdtempSync(path.join(root, 'home-'));
  const posted: [string, string][] = [];
  const opened: Opened = { dbs: [], watches: [] };
  after(async () => {
    await Promise.all(opened.watches.map((w) => w.close()));
    opened.dbs.forEach((db) => db.open && db.close());
  });
  return {
    dir,
    posted,
    life: (format: TranscriptFormat = 'claude') => daemonLife(dir, posted, opened, format),
    transcript: path.join(dir, 'session.jsonl'),
  };
}

const FIRST = '[Leo Chat] first message';

describe('reply watch across a daemon restart', () => {
  it('a turn that ended while the daemon was down is posted once at start, and never again', async () => {
    const h = home();
    const ids = new Map<string, string>();
    const recorded = freshTranscriptLines('queued-prompt-next-turn', { ids });
    const promptAt = recorded.findIndex((l) => l.includes(FIRST) && l.includes('"type":"user"'));
    // Before: the prompt is typed in and its turn is running when the daemon stops.
    const before = h.life();
    before.sessionStarted('den', { transcript_path: h.transcript });
    before.started('den', 'm1', FIRST);
    before.delivered('den', 'm1');
    writeTranscript(h.transcript, recorded.slice(0, promptAt + 1));
    await before.onStop('den', { transcript_path: h.transcript, prompt_id: 'an-earlier-turn' });
    await before.close();
    assert.deepEqual(h.posted, []);
    // While it is down: the turn ends (its Stop hook finds no daemon), then a prompt typed at the terminal runs a turn.
    writeTranscript(h.transcript, recorded);

    await h.life().catchUp();
    assert.deepEqual(h.posted, [['A slow answer to the first.', 'm1']], 'the typed prompt answered nobody');
    await h.life().catchUp();
    await h.life().catchUp();
    assert.equal(h.posted.length, 1, 'posted once, however often the daemon starts again');
  });

  it('a turn that failed while the daemon was down (Codex: no hook at all) is noted once at start', async () => {
    const h = home();
    const before = h.life();
    // Codex names its rollout at SessionStart; the message is typed in, then the daemon stops.
    before.sessionStarted('den', { transcript_path: h.transcript });
    before.started('den', 'm1', '[Leo Chat] hello codex');
    before.delivered('den', 'm1');
    await before.close();
    // While it is down the provider refuses the turn: the rollout records the failure and its end.
    writeTranscript(h.transcript, freshTranscriptLines('codex-tui-401'));

    await h.life('codex').catchUp();
    assert.equal(h.posted.length, 1);
    assert.match(h.posted[0]![0], /^\(failed\) unexpected status 401 Unauthorized/);
    assert.equal(h.posted[0]![1], 'm1');
    await h.life('codex').catchUp();
    assert.equal(h.posted.length, 1, 'noted once, however often the daemon starts again');
  });

  it('a turn still running at start-up is left to its Stop', async () => {
    const h = home();
    const ids = new Map<string, string>();
    const recorded = freshTranscriptLines('same-text-twice', { ids });
    const prompt = '[Leo Chat] same text';
    const firstTurnEnd = recorded.findIndex((l) => l.includes('turn_duration'));
    const before = h.life();
    before.sessionStarted('den', { transcript_path: h.transcript });
    before.started('den', 'm1', prompt);
    before.delivered('den', 'm1');
    // The first turn streamed its answer but had not recorded its end when the daemon stopped and started again.
    writeTranscript(h.transcript, recorded.slice(0, firstTurnEnd - 1));
    await before.close();
    const now = h.life();
    await now.catchUp();
    assert.deepEqual(h.posted, []);
    writeTranscript(h.transcript, recorded.slice(0, firstTurnEnd + 1));
    const promptId = promptIdOf(recorded, prompt);
    await now.onStop('den', { transcript_path: h.transcript, prompt_id: promptId });
    assert.deepEqual(h.posted, [['First answer.', 'm1']]);
  });

  it('a message being typed when the daemon stopped was failed: it waits for nothing', async () => {
    const h = home();
    const before = h.life();
    before.sessionStarted('den', { transcript_path: h.transcript });
    before.started('den', 'm1', '[Leo Chat] What is 2+2?');
    await before.close();
    writeTranscript(h.transcript, freshTranscriptLines('plain'));
    const now = h.life();
    await now.catchUp();
    now.delivered('den', 'm1');
    await now.onStop('den', { transcript_path: h.transcript });
    assert.deepEqual(h.posted, []);
  });
});

describe('reply watch: a reply is posted only after its message is marked delivered', () => {
  it('a Stop that comes while the message is still being typed posts its reply once it is delivered', async () => {
    const h = home();
    const watch = h.life();
    const lines = freshTranscriptLines('same-text-twice');
    const prompt = '[Leo Chat] same text';
    const end = lines.findIndex((l) => l.includes('turn_duration'));
    watch.sessionStarted('den', { transcript_path: h.transcript });
    watch.started('den', 'm1', prompt);
    // The agent was quick: its turn ended, and its Stop came, before the paste was confirmed.
    writeTranscript(h.transcript, lines.slice(0, end + 1));
    const promptId = promptIdOf(lines, prompt);
    await watch.onStop('den', { transcript_path: h.transcript, prompt_id: promptId });
    assert.deepEqual(h.posted, [], 'nothing posted for a message not yet delivered');
    watch.delivered('den', 'm1');
    await until('the reply', () => h.posted.length > 0, 5000, 10);
    assert.deepEqual(h.posted, [['First answer.', 'm1']]);
  });
});
