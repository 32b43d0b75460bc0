import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SharedChunks } from '../../src/events/shared-chunk.js';

describe('SharedChunks', () => {
  it('gives streams that queued the same frames one Buffer, and any other queue its own bytes', () => {
    const chunks = new SharedChunks();
    const [a, b, c] = ['event: x\ndata: {"seq":1}\n\n', 'event: x\ndata: {"seq":2}\n\n', ': heartbeat\n\n'];
    const first = chunks.join([a, b]);
    assert.equal(first.toString(), a + b);
    assert.equal(chunks.join([a, b]), first, 'the same frames: the same Buffer, encoded once');
    assert.equal(chunks.join([a, b, c]).toString(), a + b + c, 'one more frame');
    assert.equal(chunks.join([b, a]).toString(), b + a, 'the same frames in another order');
    assert.equal(chunks.join([a, c]).toString(), a + c, 'as long, another last frame');
    // Another audience numbers the same event differently: equal text only, never equal identity, is what matches.
    const copy = ['event: x\ndata: {"seq":', '1}\n\n'].join('');
    const again = chunks.join([copy]);
    assert.equal(chunks.join([a]), again, 'equal text counts as the same frame');
    assert.equal(again.toString(), a);
    assert.equal(chunks.join(['é']).toString(), 'é', 'UTF-8');
  });
});
