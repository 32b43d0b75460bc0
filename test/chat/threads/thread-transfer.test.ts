// A thread moving with its agent to another host (issue 32): packed from one chat.db, taken into another under a new
// name, again without effect, refused when a file was changed, discarded, and closed on the host it left.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { AskService } from '../../../src/chat/asks/asks.js';
import { AttachmentStore } from '../../../src/chat/attachments/attachments.js';
import { DialogWatch } from '../../../src/chat/permissions/dialog-watch.js';
import { PermissionPrompts } from '../../../src/chat/permissions/permission-prompts.js';
import { ReminderService } from '../../../src/chat/reminders/reminders.js';
import { ChatService, type ChatServiceDeps } from '../../../src/chat/threads/chat-service.js';
import { ChatStore } from '../../../src/chat/threads/chat-store.js';
import { PendingLimit } from '../../../src/chat/threads/pending-limit.js';
import { ThreadNotes } from '../../../src/chat/threads/thread-notes.js';
import { shifted, TYPING_CUT } from '../../../src/chat/threads/transfer/arriving-rows.js';
import { movedNote, SqliteThreadCarrier } from '../../../src/chat/threads/transfer/sqlite-thread-carrier.js';
import { ThreadPackError } from '../../../src/chat/threads/transfer/thread-files.js';
import { ManualClock } from '../../../src/core/clock.js';
import { createLogger } from '../../../src/core/logger.js';
import { Deliverer } from '../../../src/delivery/deliverer.js';
import type { BusEvent } from '../../../src/events/event.js';
import { EventBus } from '../../../src/events/bus.js';
import { openDatabase } from '../../../src/store/database.js';
import type { Message } from '../../../src/wire/message.js';
import { THREAD_FILES, ThreadManifest } from '../../../src/wire/thread-pack.js';
import { until } from '../../helpers/wait.js';

const NOW = Date.parse('2026-12-05T10:00:00Z');
const soon = <T>(probe: () => T | false) => until('the change', probe, 10_000, 10);

/** One daemon's chat services over its own chat.db and attachment folder, its agents all running. */
function host(t: TestContext, name: string) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `leo-thread-${name}-`));
  const db = openDatabase(path.join(dir, 'chat.db'));
  t.after(() => {
    db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  const clock = new ManualClock(NOW);
  const store = new ChatStore(db, clock);
  const bus = new EventBus(clock);
  const events: BusEvent[] = [];
  bus.subscribe({ deliver: (e) => void events.push(e) });
  const notes = new ThreadNotes(store, bus);
  const attachments = new AttachmentStore(db, clock, path.join(dir, 'attachments'));
  const typed: string[] = [];
  const chat = new ChatService({
    store,
    notes,
    bus,
    clock,
    deliverer: new Deliverer([
      { name: 'tmux', available: () => true, deliver: async (_agent, text) => void typed.push(text) },
    ]),
    agents: { isRunning: () => true, movedError: () => null, sendError: () => null, unheld: async () => true },
    attachments,
    maxAttachmentBytes: () => 1 << 20,
    pending: new PendingLimit(() => 1000),
    logger: createLogger('silent'),
  } as unknown as ChatServiceDeps);
  const asks = new AskService({ store, bus, clock, chat });
  const terminal = { look: async () => null, press: async () => {} };
  const prompts = new PermissionPrompts({
    store,
    bus,
    clock,
    timeouts: () => ({ permissionMs: 600_000, questionMs: 600_000 }),
    terminal,
    dialogs: new DialogWatch({ terminal }),
  });
  const reminders = new ReminderService({ db, clock, chat });
  t.after(() => (asks.close(), reminders.close()));
  const carrier = new SqliteThreadCarrier({ db, store, attachments, bus, notes, chat, asks, prompts, reminders });
  const thread = (agent: string) => store.page(agent, { limit: 500 }).messages;
  return { dir, db, clock, store, bus, events, attachments, chat, typed, asks, prompts, reminders, carrier, thread };
}

type Host = ReturnType<typeof host>;

/** A thread with the owner's messages, the agent's replies, a file each way, a read marker and a reminder. */
function seed(h: Host, agent: string) {
  const upload = path.join(h.dir, 'plan.txt');
  fs.writeFileSync(upload, 'the plan, in bytes\n');
  const photo = path.join(h.dir, 'photo.png');
  fs.writeFileSync(photo, Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 3, 255]));
  const sent = h.attachments.saveCopy(agent, upload, 1 << 20);
  const first = h.store.insert({
    agent,
    direction: 'in',
    kind: 'file',
    text: 'read this',
    sender: 'client:phone',
    client_id: 'c-1',
    state: 'delivered',
    attachmentIds: [sent.id],
  });
  h.chat.post(agent, { text: 'done', files: [photo], replyTo: first.id });
  h.store.insert({ agent, direction: 'out', kind: 'system', text: 'Starting den…', state: '' });
  h.store.insert({ agent, direction: 'in', kind: 'text', text: 'then ship it', state: 'delivered' });
  h.store.markRead(agent, first.id);
  h.reminders.schedule({ agent }, 'check the deploy', '2026-12-05T11:00:00Z');
  return { first };
}

/** What a thread is, for comparing two hosts' copies: everything but the agent's name and the files' paths. */
function shape(messages: Message[]) {
  return messages.map(({ agent: _, ...m }) => m);
}

const packDir = (h: Host) => fs.mkdtempSync(path.join(h.dir, 'pack-'));

describe('a thread moving to another host', () => {
  it('arrives whole under the new name: ids, order, texts, files, read marker and reminders; the source keeps its own', async (t) => {
    const a = host(t, 'a');
    const b = host(t, 'b');
    seed(a, 'den');
    const dir = packDir(a);
    const manifest = ThreadManifest.parse(await a.carrier.pack('den', dir));
    assert.equal(manifest.messages, 4);
    assert.equal(manifest.attachments, 2);
    assert.deepEqual(manifest.files.map((f) => f.name).slice(0, 4), [
      THREAD_FILES.messages,
      THREAD_FILES.attachments,
      THREAD_FILES.reminders,
      THREAD_FILES.read,
    ]);

    await b.carrier.unpack(dir, manifest, 'fox');
    const source = a.thread('den');
    const arrived = b.thread('fox');
    assert.deepEqual(shape(arrived), shape(source));
    assert.ok(arrived.every((m) => m.agent === 'fox'));
    const unread = (h: Host, agent: string) => h.store.threads().find((th) => th.agent === agent)?.unread;
    assert.equal(unread(b, 'fox'), unread(a, 'den'));
    assert.equal(unread(b, 'fox'), 2);
    for (const m of source)
      for (const ref of m.attachments) {
        const there = b.attachments.fileOf('fox', ref.id)!;
        assert.ok(there.path.startsWith(b.attachments.root + path.sep));
        assert.ok(there.ref.available);
        assert.deepEqual(fs.readFileSync(there.path), fs.readFileSync(a.attachments.fileOf('den', ref.id)!.path));
      }
    assert.deepEqual(b.reminders.list('fox'), a.reminders.list('den'));
    // The app refetches its thread list on the newest message's chat.updated; nothing is pushed again as new.
    const told = b.events.filter((e) => e.type.startsWith('chat.'));
    assert.deepEqual(
      told.map((e) => [e.type, (e.data as { message: Message }).message.id]),
      [['chat.updated', arrived.at(-1)!.id]],
    );

    // The reminder was re-armed on the target: it posts there when due.
    b.clock.advance(3600_000);
    await soon(() => b.thread('fox').some((m) => m.text === 'check the deploy'));
  });

  it('taken in again adds nothing; a second name here gets the same thread under ids of its own', async (t) => {
    const a = host(t, 'a');
    const b = host(t, 'b');
    const { first } = seed(a, 'den');
    a.store.insert({ agent: 'den', direction: 'in', kind: 'text', text: 'not typed yet', state: 'pending' });
    const dir = packDir(a);
    const manifest = await a.carrier.pack('den', dir);
    await b.carrier.unpack(dir, manifest, 'fox');
    await soon(() => b.typed.length === 1);
    const once = b.thread('fox');
    const events = b.events.length;

    await b.carrier.unpack(dir, manifest, 'fox');
    await new Promise((r) => setTimeout(r, 30));
    assert.deepEqual(b.thread('fox'), once);
    assert.equal(b.events.length, events);
    assert.equal(b.typed.length, 1);
    assert.equal(b.reminders.list('fox').length, 1);

    // The same pack as another agent here (a copy of a copy): every id is taken by fox's rows, so the thread's ids move back a millisecond,
    // the references follow, and taking it in again still adds nothing.
    await b.carrier.unpack(dir, manifest, 'owl');
    await b.carrier.unpack(dir, manifest, 'owl');
    const owl = b.thread('owl');
    assert.equal(owl.length, once.length);
    assert.deepEqual(
      owl.map((m) => m.id),
      once.map((m) => shifted(m.id, 1)),
    );
    assert.equal(owl[1]!.reply_to, shifted(first.id, 1));
    assert.deepEqual(
      owl.map((m) => m.text),
      once.map((m) => m.text),
    );
    const file = owl[0]!.attachments[0]!;
    assert.equal(fs.readFileSync(b.attachments.fileOf('owl', file.id)!.path, 'utf8'), 'the plan, in bytes\n');
    assert.equal(b.reminders.list('owl').length, 1);
  });

  it('a message not yet typed is typed on the target; one whose typing had begun fails there; open cards arrive closed', async (t) => {
    const a = host(t, 'a');
    const b = host(t, 'b');
    a.store.insert({ agent: 'den', direction: 'in', kind: 'text', text: 'waiting', state: 'pending' });
    const typing = a.store.insert({ agent: 'den', direction: 'in', kind: 'text', text: 'typing', state: 'pending' });
    a.store.markDeliveryStarted(typing.id);
    // A copy packs a running agent: its ask and its prompt are still open at the source.
    const ask = a.asks.open({ agent: 'den' }, 'Ship it?', { type: 'buttons', options: [] } as never, 600);
    const held = new AbortController();
    void a.prompts.request('den', { tool_name: 'Bash', tool_input: { command: 'ls' } }, held.signal);
    const dir = packDir(a);
    await b.carrier.unpack(dir, await a.carrier.pack('den', dir), 'den');

    await soon(() => b.typed.length === 1);
    assert.match(b.typed[0]!, /waiting/);
    const byText = new Map(b.thread('den').map((m) => [m.text, m]));
    assert.equal(byText.get('waiting')!.state, 'delivered');
    assert.equal(byText.get('typing')!.state, 'failed');
    assert.equal(byText.get('typing')!.failure, TYPING_CUT);
    assert.equal(byText.get('Ship it?')!.state, 'expired');
    assert.equal(byText.get('Ship it?')!.closed_reason, 'agent_gone');
    const prompt = b.thread('den').find((m) => m.kind === 'permission')!;
    assert.equal(prompt.state, 'expired');
    assert.equal(prompt.closed_reason, undefined);
    // The source's stay open: a copy leaves it running.
    assert.equal(a.store.get(ask.id)!.state, 'open');
    a.prompts.agentGone('den');
  });

  it('a file gone from the source travels as pruned: its row says so, no file is shipped', async (t) => {
    const a = host(t, 'a');
    const b = host(t, 'b');
    const { first } = seed(a, 'den');
    const gone = first.attachments[0]!;
    fs.rmSync(a.attachments.fileOf('den', gone.id)!.path);
    const dir = packDir(a);
    const manifest = await a.carrier.pack('den', dir);
    assert.equal(manifest.attachments, 2);
    assert.equal(manifest.files.filter((f) => f.name.startsWith('attachments/')).length, 1);
    await b.carrier.unpack(dir, manifest, 'fox');
    const refs = b.thread('fox').flatMap((m) => m.attachments);
    assert.deepEqual(
      refs.map((r) => [r.filename, r.available]),
      [
        ['plan.txt', false],
        ['photo.png', true],
      ],
    );
  });

  it('refuses a file changed on its way, naming it, and takes nothing in', async (t) => {
    const a = host(t, 'a');
    const b = host(t, 'b');
    seed(a, 'den');
    const dir = packDir(a);
    const manifest = await a.carrier.pack('den', dir);
    const attachment = manifest.files.find((f) => f.name.startsWith('attachments/'))!;
    const file = path.join(dir, attachment.name);
    const bytes = fs.readFileSync(file);
    bytes[0] = bytes[0]! ^ 1;
    fs.writeFileSync(file, bytes);
    await assert.rejects(
      b.carrier.unpack(dir, manifest, 'fox'),
      (err: Error) => err instanceof ThreadPackError && err.message.includes(`${attachment.name} does not match`),
    );
    fs.rmSync(path.join(dir, THREAD_FILES.read));
    await assert.rejects(b.carrier.unpack(dir, manifest, 'fox'), /read\.json is missing/);
    // Whole and as listed, but not a thread's rows: a JSON column that does not parse would break every read.
    const fresh = packDir(a);
    const listed = await a.carrier.pack('den', fresh);
    const rows = fs.readFileSync(path.join(fresh, THREAD_FILES.messages), 'utf8').split('\n');
    rows[1] = JSON.stringify({ ...JSON.parse(rows[1]!), answer: '{not json' });
    fs.writeFileSync(path.join(fresh, THREAD_FILES.messages), rows.join('\n'));
    const files = listed.files.map((f) => (f.name === THREAD_FILES.messages ? { name: f.name, ...digest(f.name) } : f));
    function digest(name: string) {
      const bytes = fs.readFileSync(path.join(fresh, name));
      return { bytes: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') };
    }
    await assert.rejects(
      b.carrier.unpack(fresh, { ...listed, files }, 'fox'),
      /messages\.jsonl line 2 is not a packed row: JSON text/,
    );
    assert.deepEqual(b.thread('fox'), []);
    assert.equal(fs.existsSync(path.join(b.attachments.root, 'fox')), false);
  });

  it('discard removes what was taken in: messages, files, read marker, reminders', async (t) => {
    const a = host(t, 'a');
    const b = host(t, 'b');
    seed(a, 'den');
    const dir = packDir(a);
    await b.carrier.unpack(dir, await a.carrier.pack('den', dir), 'fox');
    await b.carrier.discard('fox');
    assert.deepEqual(b.thread('fox'), []);
    assert.equal(b.db.prepare(`SELECT COUNT(*) FROM attachments WHERE agent = 'fox'`).pluck().get(), 0);
    assert.equal(b.db.prepare(`SELECT COUNT(*) FROM read_markers WHERE agent = 'fox'`).pluck().get(), 0);
    assert.deepEqual(b.reminders.list('fox'), []);
    assert.equal(fs.existsSync(path.join(b.attachments.root, 'fox')), false);
    // The source's thread is untouched.
    assert.equal(a.thread('den').length, 4);
  });

  it('closeForMove closes what waited on the owner, releases held calls, cancels reminders and notes it once', async (t) => {
    const a = host(t, 'a');
    seed(a, 'den');
    const ask = a.asks.open({ agent: 'den' }, 'Ship it?', { type: 'buttons', options: [] } as never, 600);
    const waiting = a.asks.wait({ agent: 'den' }, ask.id);
    const hook = a.prompts.request(
      'den',
      { tool_name: 'Bash', tool_input: { command: 'ls' } },
      new AbortController().signal,
    );
    await soon(() => a.store.openPrompts('den').length === 1);
    const before = a.events.length;

    await a.carrier.closeForMove('den', 'den@desk');
    await a.carrier.closeForMove('den', 'den@desk');
    assert.deepEqual(await hook, {});
    assert.equal(((await waiting) as { closed_reason: string }).closed_reason, 'agent_gone');
    const thread = a.thread('den');
    const closed = thread.filter((m) => m.kind === 'ask' || m.kind === 'permission');
    assert.deepEqual(
      closed.map((m) => [m.kind, m.state, m.closed_reason]),
      [
        ['ask', 'expired', 'agent_gone'],
        ['permission', 'expired', undefined],
      ],
    );
    assert.equal(thread.filter((m) => m.text === movedNote('den', 'den@desk')).length, 1);
    assert.equal(thread.at(-1)!.kind, 'system');
    const told = a.events.slice(before).map((e) => [e.type, (e.data as { message: Message }).message.id]);
    assert.deepEqual(told, [
      ['chat.updated', closed[1]!.id],
      ['chat.updated', closed[0]!.id],
      ['chat.message', thread.at(-1)!.id],
    ]);
    assert.deepEqual(a.reminders.list('den'), []);
  });
});
