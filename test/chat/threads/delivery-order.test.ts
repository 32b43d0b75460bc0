import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { paneText, startTestDaemon, type TestDaemon } from '../../helpers/daemon.js';
import { until } from '../../helpers/wait.js';
import { MessagePage } from '../../../src/wire/message.js';

const CONFIG = `
templates:
  cat: { harness: shell, command: "exec cat" }
`;

describe('messages to a stopped agent', () => {
  let t: TestDaemon;

  before(async () => {
    t = await startTestDaemon({ config: CONFIG });
    assert.equal((await t.op('POST', '/api/v1/agents/spawn', { template: 'cat', name: 'den' })).status, 201);
    assert.equal((await t.op('POST', '/api/v1/agents/den/stop')).status, 200);
  });
  after(() => t.stop());

  it('start it once and are typed in the order they were sent', async () => {
    const sent: string[] = [];
    for (let i = 1; i <= 8; i++) {
      const r = await t.op('POST', '/api/v1/chat/den/messages', { text: `in order ${i}` });
      assert.equal(r.status, 201, r.text);
      sent.push(r.json.data.id);
    }
    const thread = await until(
      'all delivered',
      async () => {
        const ms = (await t.get('/api/v1/chat/den/messages?limit=100', MessagePage)).messages as {
          id: string;
          kind: string;
          text: string;
          state: string;
        }[];
        return sent.every((id) => ms.find((m) => m.id === id)?.state === 'delivered') ? ms : undefined;
      },
      60_000,
    );
    assert.equal(thread.filter((m) => m.kind === 'system' && m.text === 'Starting den…').length, 1);
    // cat's copies (the lines without the terminal's echo) come in the order the pane received the text.
    const typed = paneText(t.home, 'den')
      .split('\n')
      .map((l) => /\[Leo Chat\] in order (\d)/.exec(l)?.[1])
      .filter((n): n is string => n !== undefined);
    const firstSeen = [...new Set(typed)];
    assert.deepEqual(firstSeen, ['1', '2', '3', '4', '5', '6', '7', '8']);
  });
});
