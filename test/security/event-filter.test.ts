// Issue 20 item 2: a dashboard (API-client) token got every conversation on /api/v1/events — messages, answers,
// transcripts and permission prompts' command lines — while the chat routes answer it 403. The attack: hold a
// dashboard's stream (with and without can_post) beside the operator's, a device's and the socket's while every kind
// of chat event happens through the real routes, the real permission hook and the real voice pipeline. The same
// traffic checks that each stream is numbered without a gap (issue 29 item 1).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { nativeBinDir } from '../../src/native/programs.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { request } from '../helpers/http.js';
import { SseClient } from '../helpers/sse-client.js';
import { until } from '../helpers/wait.js';
import { SMALLEST_HPARAMS, writeWeightlessModel } from '../helpers/whisper-model.js';
import { issueTokens, type Tokens } from './principals.js';

const whisperBuilt = fs.existsSync(path.join(nativeBinDir(), 'whisper-cli'));

/** Every principal that may read the stream: five token kinds over TCP, and the unix socket. */
const READERS = ['operator', 'device', 'client', 'poster', 'peer', 'socket'] as const;
type Reader = (typeof READERS)[number];

describe('/api/v1/events carries conversations only to those who may read them', () => {
  let t: TestDaemon;
  let tokens: Tokens;
  let scratch = '';
  const streams = {} as Record<Reader, SseClient>;
  const snapshots = {} as Record<Reader, number>;
  /** The seq of the /api/v1/state this reader reads. */
  const stateSeq = async (who: Reader): Promise<number> => {
    const r = await (who === 'socket'
      ? request(t.socket, 'GET', '/api/v1/state')
      : request(t.tcp, 'GET', '/api/v1/state', { token: tokens[who] }));
    assert.equal(r.status, 200, `${who}: ${r.text}`);
    return r.json.data.seq;
  };

  before(async () => {
    scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'leo-event-filter-'));
    const model = writeWeightlessModel(path.join(scratch, 'ggml-tiny.en.bin'), SMALLEST_HPARAMS);
    t = await startTestDaemon({
      config: `chat:\n  whisper_model: ${model}\ntemplates:\n  cat: { harness: shell, command: "exec cat" }\n`,
    });
    assert.equal((await t.op('POST', '/api/v1/agents/spawn', { template: 'cat', name: 'den' })).status, 201);
    tokens = await issueTokens(t.tcp, t.daemon.paths, 'den');
    // Each reader's snapshot right before its stream: nothing happens in between, so both stand at the same seq.
    for (const who of READERS) {
      snapshots[who] = await stateSeq(who);
      streams[who] = await (who === 'socket'
        ? SseClient.open(t.socket, '/events')
        : SseClient.open(t.tcp, '/api/v1/events', tokens[who]));
      await streams[who].waitFor(1);
    }
  });
  after(async () => {
    for (const s of Object.values(streams)) s.close();
    await t.stop();
    fs.rmSync(scratch, { recursive: true, force: true });
  });

  it('every chat event kind reaches the operator, devices and the socket, and none reaches a dashboard', async () => {
    const ids: string[] = [];
    const secrets: string[] = [];
    const secret = (what: string) => {
      const s = `${what}-${secrets.length}-c0nf1dential`;
      secrets.push(s);
      return s;
    };

    // Inbound messages: the owner's and a can_post client's own (chat.message, then chat.updated state).
    const mine = await t.op('POST', '/api/v1/chat/den/messages', { text: secret('owner message') });
    assert.equal(mine.status, 201, mine.text);
    const posted = await request(t.tcp, 'POST', '/api/v1/chat/den/messages', {
      token: tokens.poster,
      body: { text: secret('poster message') },
    });
    assert.equal(posted.status, 201, posted.text);
    ids.push(mine.json.data.id, posted.json.data.id);

    // The agent's reply.
    const reply = await request(t.tcp, 'POST', '/api/agent/den/chat/post', {
      token: tokens.agent,
      body: { text: secret('agent reply') },
    });
    assert.equal(reply.status, 200, reply.text);
    ids.push(reply.json.data.message_id);

    // An ask and its answer (chat.updated answer).
    const asking = request(t.tcp, 'POST', '/api/agent/den/chat/ask', {
      token: tokens.agent,
      body: {
        question: secret('question'),
        input: {
          type: 'buttons',
          allow_text: true,
          options: [
            { value: 'ship', label: 'Ship' },
            { value: 'wait', label: 'Wait' },
          ],
        },
      },
    });
    const ask = await until('the ask', () => lastOf(streams.operator!, 'ask'), 10_000);
    const answered = await t.op('POST', `/api/v1/chat/den/messages/${ask.id}/answer`, {
      values: [],
      text: secret('answer'),
    });
    assert.equal(answered.status, 200, answered.text);
    assert.equal((await asking).status, 200);
    ids.push(ask.id);

    // A permission prompt whose command line holds a password, answered from chat.
    const hook = request(t.socket, 'POST', '/hooks/permission-request', {
      body: {
        agent: 'den',
        payload: {
          hook_event_name: 'PermissionRequest',
          session_id: 's1',
          tool_name: 'Bash',
          tool_input: { command: `mysql -p${secret('password')} prod` },
        },
      },
    });
    const prompt = await until('the permission prompt', () => lastOf(streams.operator!, 'permission'), 10_000);
    assert.equal(
      (await t.op('POST', `/api/v1/chat/den/messages/${prompt.id}/answer`, { values: ['deny'], text: secret('why') }))
        .status,
      200,
    );
    assert.equal((await hook).status, 200);
    ids.push(prompt.id);

    // A voice note (chat.updated transcript), through the real ffmpeg and whisper-cli.
    const changes = ['state', 'answer'];
    if (whisperBuilt) {
      const m4a = path.join(scratch, 'note.m4a');
      execFileSync('ffmpeg', ['-nostdin', '-loglevel', 'error', '-y', '-f', 'lavfi', '-i', 'sine=d=1', m4a]);
      const up = await request(t.tcp, 'POST', '/api/v1/chat/uploads?filename=note.m4a&agent=den', {
        token: t.daemon.operatorToken,
        rawBody: fs.readFileSync(m4a),
        headers: { 'content-type': 'audio/mp4' },
      });
      assert.equal(up.status, 201, up.text);
      const voice = await t.op('POST', '/api/v1/chat/den/messages', {
        text: secret('voice caption'),
        attachments: [up.json.data.id],
      });
      assert.equal(voice.json.data.kind, 'voice');
      ids.push(voice.json.data.id);
      changes.push('transcript');
      await until(
        'the transcript',
        () => streams.operator!.events.some((e) => e.event === 'chat.updated' && e.data.change === 'transcript'),
        30_000,
      );
    }

    // A fleet event after all of it: each stream has had everything before it.
    assert.equal((await t.op('POST', '/api/v1/agents/den/restart')).status, 200);
    for (const s of Object.values(streams))
      await until('the restart', () => s.events.some((e) => e.event === 'agent_spawned'), 15_000);

    // A peer hub reads conversations as the owner's apps do: it carries them to the owner (issue 31).
    for (const who of ['operator', 'device', 'peer', 'socket'] as const) {
      const events = streams[who]!.events;
      const messages = new Set(events.filter((e) => e.event === 'chat.message').map((e) => e.data.message.id));
      assert.deepEqual(
        ids.filter((id) => !messages.has(id)),
        [],
        `${who}: a chat.message for every message`,
      );
      const seen = new Set(events.filter((e) => e.event === 'chat.updated').map((e) => e.data.change));
      for (const c of changes) assert.ok(seen.has(c), `${who}: chat.updated ${c}`);
      const text = JSON.stringify(events);
      for (const s of secrets) assert.ok(text.includes(s), `${who} reads ${s}`);
    }
    for (const who of ['client', 'poster'] as const) {
      const events = streams[who]!.events;
      assert.deepEqual(
        events.filter((e) => e.event.startsWith('chat.')).map((e) => `${e.event} ${e.data.change ?? ''}`),
        [],
        `${who}: no chat event at all`,
      );
      const text = JSON.stringify(events);
      for (const s of secrets) assert.ok(!text.includes(s), `${who} must not read ${s}`);
      assert.ok(
        events.some((e) => e.event === 'agent_stopped'),
        `${who}: the fleet events still arrive`,
      );
      // Nothing was skipped but chat events: the fleet events the operator's stream had by then, in the same order.
      const fleet = (list: typeof events, upTo: number) =>
        list
          .filter((e) => e.event !== 'hello' && !e.event.startsWith('chat.'))
          .slice(0, upTo)
          .map(({ event, data: { seq: _seq, ...rest } }) => JSON.stringify([event, rest]));
      const got = fleet(events, Infinity);
      assert.deepEqual(got, fleet(streams.operator.events, got.length));
    }
  });

  it('every reader’s stream counts up by one from its hello, and its /state seq is where its stream stands', async () => {
    // Issue 29 item 1: a dashboard's stream skips the chat events above, yet shows no gap for them.
    const gapless = (who: Reader) => {
      const [hello, ...events] = streams[who].events;
      assert.deepEqual(
        events.map((e) => e.data.seq),
        events.map((_, i) => hello!.data.seq + 1 + i),
        `${who}: ${events.map((e) => `${e.data.seq}:${e.event}`).join(' ')}`,
      );
    };
    for (const who of READERS) gapless(who);
    const isRestart = (e: { event: string }) => e.event === 'agent_spawned';
    for (const who of READERS) {
      const stream = streams[who];
      assert.equal(
        snapshots[who],
        stream.events[0]!.data.seq,
        `${who}: its snapshot before the stream and its hello agree`,
      );
      // /state is never behind what the stream has carried, and the stream reaches the seq /state gives.
      const seq = await stateSeq(who);
      assert.ok(seq >= stream.events.find(isRestart)!.data.seq, `${who}: /state is not behind its stream`);
      await until(
        `${who}'s stream to reach /state's seq ${seq}`,
        () => stream.events.at(-1)!.data.seq >= seq,
        5000,
        20,
      );
      gapless(who);
    }
    // A reader opening its stream now starts where its snapshot stands (between the two reads around it).
    for (const who of READERS) {
      const before = await stateSeq(who);
      const again = await (who === 'socket'
        ? SseClient.open(t.socket, '/events')
        : SseClient.open(t.tcp, '/api/v1/events', tokens[who]));
      const seq = (await again.waitFor(1))[0]!.data.seq;
      again.close();
      assert.ok(before <= seq && seq <= (await stateSeq(who)), `${who}: a new stream's hello ${seq} is its snapshot's`);
    }
  });
});

/** The newest message of a kind a stream has been told about. */
function lastOf(stream: SseClient, kind: string): { id: string } | undefined {
  return stream.events.findLast((e) => e.event === 'chat.message' && e.data.message.kind === kind)?.data.message;
}
