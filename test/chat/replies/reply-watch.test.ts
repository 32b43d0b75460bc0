import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Message } from '../../../src/wire/message.js';
import type { BusEvent } from '../../../src/events/event.js';
import { paneText, startTestDaemon, type TestDaemon } from '../../helpers/daemon.js';
import { request } from '../../helpers/http.js';
import { freshTranscriptLines, promptIdOf, transcriptFixture, writeTranscript } from '../../helpers/transcripts.js';
import { until } from '../../helpers/wait.js';

const CONFIG = `
templates:
  cat: { harness: shell, command: "exec cat" }
`;

/**
 * A recorded transcript with its prompt swapped for the one Leo delivered and its timestamps moved to now, as if the
 * agent had just answered it.
 */
function transcriptFor(fixture: string, from: string, to: string, dir: string): string {
  return writeTranscript(
    path.join(dir, `${fixture}-${Date.now()}-${Math.random()}.jsonl`),
    freshTranscriptLines(fixture, { swap: [from, to] }),
  );
}

describe('Stop hook → reply captured from the transcript (worker pool) → posted in the thread', () => {
  let t: TestDaemon;
  const stop = (transcript: string, promptId?: string) =>
    request(t.socket, 'POST', '/hooks/stop', {
      body: {
        agent: 'den',
        payload: { transcript_path: transcript, hook_event_name: 'Stop', ...(promptId ? { prompt_id: promptId } : {}) },
      },
    });
  const send = async (text: string) => {
    const r = await t.op('POST', '/api/v1/chat/den/messages', { text });
    for (let i = 0; i < 50; i++) {
      const m = (await t.op('GET', '/api/v1/chat/den/messages')).json.data.messages.find(
        (x: { id: string }) => x.id === r.json.data.id,
      );
      if (m.state === 'delivered') return m.id as string;
      await sleep(50);
    }
    throw new Error('not delivered');
  };
  const messages = async () => (await t.op('GET', '/api/v1/chat/den/messages')).json.data.messages as Message[];
  const lastOut = async () => {
    await sleep(400);
    return (await t.op('GET', '/api/v1/chat/den/messages')).json.data.messages
      .filter((m: { direction: string; kind: string }) => m.direction === 'out' && m.kind !== 'system')
      .at(-1);
  };

  before(async () => {
    t = await startTestDaemon({ config: CONFIG });
    await t.op('POST', '/api/v1/agents/spawn', { template: 'cat', name: 'den' });
  });
  after(() => t.stop());

  it("posts the turn's last assistant message as a reply to the delivered message", async () => {
    const id = await send('What is 2+2?');
    assert.equal(
      (await stop(transcriptFor('plain', '[Leo Chat] What is 2+2?', '[Leo Chat] What is 2+2?', t.home))).status,
      200,
    );
    const reply = await lastOut();
    assert.deepEqual([reply.text, reply.reply_to, reply.kind], ['2 + 2 = 4.', id, 'text']);
  });

  /** The prompt of the recorded turn that calls leo_chat_post and then says "Posted the summary to your thread." */
  const postFixturePrompt = () => {
    const content = JSON.parse(
      fs
        .readFileSync(transcriptFixture('mcp-post.jsonl'), 'utf8')
        .split('\n')
        .find((l) => l.includes('"type":"user"'))!,
    ).message.content;
    return (typeof content === 'string' ? content : content[0].text) as string;
  };

  it('posts nothing more when the agent posted with leo_chat_post during the turn', async () => {
    const prompt = postFixturePrompt();
    await send(prompt.replace(/^\[Leo Chat\] /, ''));
    const post = await request(t.tcp, 'POST', '/api/agent/den/chat/post', {
      token: t.daemon.agentToken,
      body: { text: 'The summary: all green.' },
    });
    assert.equal(post.status, 200, post.text);
    await stop(transcriptFor('mcp-post', prompt, prompt, t.home));
    const last = await lastOut();
    assert.deepEqual([last.text, last.reply_to], ['The summary: all green.', undefined], 'no reply posted after it');
  });

  it("a post call that never reached the thread: the turn's closing words are posted as the reply", async () => {
    const prompt = postFixturePrompt();
    const id = await send(prompt.replace(/^\[Leo Chat\] /, ''));
    await stop(transcriptFor('mcp-post', prompt, prompt, t.home));
    const reply = await lastOut();
    assert.deepEqual([reply.text, reply.reply_to], ['Posted the summary to your thread.', id]);
  });

  it('a prompt not in the transcript yet waits for a later Stop', async () => {
    const id = await send('Still thinking?');
    const other = transcriptFor('plain', '[Leo Chat] What is 2+2?', '[Leo Chat] something else', t.home);
    const before = await lastOut();
    await stop(other);
    assert.equal((await lastOut()).id, before.id);
    await stop(transcriptFor('plain', '[Leo Chat] What is 2+2?', '[Leo Chat] Still thinking?', t.home));
    const reply = await lastOut();
    assert.equal(reply.reply_to, id);
  });

  it('a Stop whose turn reaches the transcript only after the hook ran: looked at again, the reply comes once', async () => {
    const id = await send('Written late?');
    const file = path.join(t.home, `late-${Date.now()}.jsonl`);
    const lines = freshTranscriptLines('plain', { swap: ['[Leo Chat] What is 2+2?', '[Leo Chat] Written late?'] });
    // The hook runs with the turn's opening prompt written and its answer not yet.
    writeTranscript(file, lines.slice(0, lines.findIndex((l) => l.includes('Written late?')) + 1));
    const before = await lastOut();
    await stop(file, promptIdOf(lines, '[Leo Chat] Written late?'));
    assert.equal((await lastOut()).id, before.id, 'nothing to post yet');
    writeTranscript(file, lines);
    const reply = await until(
      'the reply without another Stop',
      async () => {
        const last = await lastOut();
        return last.reply_to === id && last;
      },
      6_000,
    );
    assert.equal(reply.text, '2 + 2 = 4.');
    await sleep(3_500);
    assert.equal((await messages()).filter((m) => m.reply_to === id).length, 1, 'posted once');
  });

  it('a Stop that comes while the message is still being typed: the reply comes after the delivered event', async () => {
    const events: BusEvent[] = [];
    const sub = t.daemon.bus.subscribe({ deliver: (e) => void events.push(e) });
    try {
      const text = 'Quick one?';
      const lines = freshTranscriptLines('plain', { swap: ['[Leo Chat] What is 2+2?', `[Leo Chat] ${text}`] });
      const transcript = writeTranscript(path.join(t.home, 'quick.jsonl'), lines);
      const promptId = promptIdOf(lines, text);
      const id = (await t.op('POST', '/api/v1/chat/den/messages', { text })).json.data.id as string;
      // cat shows the paste at once; Leo takes it as delivered only after Enter and a look at the pane.
      await until('the paste in the pane', () => paneText(t.home, 'den').includes(`[Leo Chat] ${text}`), 5000, 10);
      assert.equal((await stop(transcript, promptId)).status, 200);
      assert.equal((await messages()).find((m) => m.id === id)?.state, 'pending', 'the Stop came before delivery');
      const reply = await until('the reply', async () => (await messages()).find((m) => m.reply_to === id), 5000, 50);
      assert.equal(reply.text, '2 + 2 = 4.');
      const of = (e: BusEvent) => e.data.message as Message;
      const delivered = events.findIndex(
        (e) => e.type === 'chat.updated' && of(e).id === id && of(e).state === 'delivered',
      );
      const posted = events.findIndex((e) => e.type === 'chat.message' && of(e).id === reply.id);
      assert.ok(delivered >= 0 && delivered < posted, `delivered at event ${delivered}, reply at ${posted}`);
    } finally {
      sub.unsubscribe();
    }
  });
});
