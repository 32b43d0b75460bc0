import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SseParser } from '../../src/wire/sse-parser.js';

describe('the SSE parser', () => {
  it('reads named events split anywhere across chunks, with comments and CRLF', () => {
    const text =
      ': heartbeat\r\n\r\nevent: hello\r\ndata: {"seq":1}\r\n\r\nevent: agent_activity\ndata: {"a":\ndata: 2}\n\n';
    for (let cut = 0; cut <= text.length; cut++) {
      const p = new SseParser();
      const events = [...p.feed(text.slice(0, cut)), ...p.feed(text.slice(cut))];
      assert.deepEqual(
        events,
        [
          { event: 'hello', data: '{"seq":1}' },
          { event: 'agent_activity', data: '{"a":\n2}' },
        ],
        `cut at ${cut}`,
      );
    }
  });

  it('an event without a name is a message; a frame without data is nothing', () => {
    assert.deepEqual(new SseParser().feed('data: x\n\nevent: y\n\n'), [{ event: 'message', data: 'x' }]);
  });

  it('end() dispatches the event whose lines are complete, and never a line still unterminated', () => {
    const p = new SseParser();
    assert.deepEqual(p.feed('data: a\ndata: b\ndata: c'), []);
    assert.deepEqual(p.end(), [{ event: 'message', data: 'a\nb' }]);
    assert.deepEqual(p.end(), []);
  });
});
