// A host's event stream renamed on its way through the hub (sse-rename.ts), pure: frames split anywhere by the
// network come out whole and renamed; what is not a frame's JSON data goes on byte for byte.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SseRename } from '../../../src/hosts/proxy/sse-rename.js';

const renamer = () => new SseRename((event, data) => ({ ...(data as object), agent: 'den@box', seen_as: event }));

describe('SseRename', () => {
  it('renames each frame’s data with its event name, however the chunks split the lines', () => {
    const stream =
      'event: screen\ndata: {"agent":"den","cols":80}\n\n: heartbeat\n\nevent: ended\ndata: {"agent":"den"}\n\n';
    for (const cut of [1, 7, 20, stream.length - 3]) {
      const r = renamer();
      const out = r.feed(stream.slice(0, cut)) + r.feed(stream.slice(cut)) + r.end();
      assert.equal(
        out,
        'event: screen\ndata: {"agent":"den@box","cols":80,"seen_as":"screen"}\n\n: heartbeat\n\n' +
          'event: ended\ndata: {"agent":"den@box","seen_as":"ended"}\n\n',
        `cut at ${cut}`,
      );
    }
  });

  it('passes on comments, ids, data that is no JSON and CRLF line ends as they came', () => {
    const r = renamer();
    assert.equal(r.feed('id: 7\r\ndata: not json\r\n\r\n'), 'id: 7\r\ndata: not json\r\n\r\n');
    assert.equal(r.feed('data: {"agent":"den"}\r\n\r\n'), 'data: {"agent":"den@box","seen_as":"message"}\r\n\r\n');
    assert.equal(r.feed('data: {"agent"'), '', 'half a line waits');
    assert.equal(r.end(), 'data: {"agent"', 'and goes on as it is when the stream ends');
  });
});
