import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sniffMedia } from '../../../src/chat/attachments/audio-magic.js';

const bytes = (...parts: (string | number[])[]) =>
  Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'latin1') : Buffer.from(p))));
/** An Ogg first page with one segment whose packet starts at byte 28. */
const ogg = (packet: string) => bytes('OggS', new Array(22).fill(0), [1, packet.length], packet);

describe('sniffMedia: audio by its first bytes', () => {
  it('names sound-only formats as audio', () => {
    assert.deepEqual(sniffMedia(bytes('fLaC', [0, 0, 0, 34])), {
      verdict: 'audio',
      mime: 'audio/flac',
      format: 'FLAC',
    });
    assert.equal(sniffMedia(bytes('RIFF', [1, 2, 3, 4], 'WAVEfmt ')).verdict, 'audio');
    assert.equal(sniffMedia(bytes('ID3', [4, 0, 0])).verdict, 'audio');
    assert.equal(sniffMedia(bytes('caff', [0, 1, 0, 0])).verdict, 'audio');
    assert.equal(sniffMedia(bytes([0xff, 0xf1, 0x5c, 0x40])).verdict, 'audio', 'ADTS, MPEG-4');
    assert.equal(sniffMedia(bytes([0xff, 0xf9, 0x5c, 0x40])).verdict, 'audio', 'ADTS, MPEG-2');
    assert.equal(sniffMedia(bytes([0, 0, 0, 0x1c], 'ftypM4A ', [0, 0, 2, 0])).verdict, 'audio');
    assert.equal(sniffMedia(ogg('OpusHead')).verdict, 'audio');
    assert.equal(sniffMedia(ogg('\x01vorbis')).verdict, 'audio');
  });

  it('leaves containers that may hold video to ffprobe', () => {
    assert.deepEqual(sniffMedia(bytes([0x1a, 0x45, 0xdf, 0xa3, 0x9f])), {
      verdict: 'container',
      mime: 'audio/webm',
      format: 'WebM/Matroska',
    });
    assert.equal(sniffMedia(bytes([0, 0, 0, 0x1c], 'ftypisom', [0, 0, 2, 0])).verdict, 'container');
    assert.equal(sniffMedia(ogg('\x80theora')).verdict, 'container');
    assert.equal(sniffMedia(bytes([0xff, 0xfb, 0x90, 0x64])).verdict, 'container', 'an MPEG frame, no ID3');
  });

  it('names what plainly is not audio, and knows nothing else', () => {
    assert.deepEqual(sniffMedia(bytes('\x89PNG\r\n\x1a\n')), { verdict: 'other', format: 'a PNG image' });
    assert.deepEqual(sniffMedia(bytes([0xff, 0xd8, 0xff, 0xe0])), { verdict: 'other', format: 'a JPEG image' });
    assert.equal(sniffMedia(bytes('%PDF-1.7')).verdict, 'other');
    assert.deepEqual(sniffMedia(bytes('hello world')), { verdict: 'unknown' });
    assert.deepEqual(sniffMedia(Buffer.alloc(0)), { verdict: 'unknown' });
    assert.deepEqual(sniffMedia(bytes([0xff, 0xff, 0xff, 0xff])), { verdict: 'unknown' }, 'sync bits, no real header');
  });
});
