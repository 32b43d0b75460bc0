import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  INLINE_MAX_BYTES,
  parseAttachments,
  userMessageParts,
  type Attachment,
} from '../../src/sessions/attachments.js';

const b64 = (s: string) => Buffer.from(s).toString('base64');
const PNG = b64('png bytes');
const WAV = b64('wav bytes');

function parsed(items: unknown[]): Attachment[] {
  const r = parseAttachments(items);
  assert.ok(r.ok, JSON.stringify(r));
  return r.value;
}

function failsOn(items: unknown, field: string): string {
  const r = parseAttachments(items);
  assert.equal(r.ok, false, `${JSON.stringify(items)?.slice(0, 200)} should fail on ${field}`);
  if (r.ok) return '';
  assert.equal(r.code, 'VALIDATION_ERROR');
  assert.deepEqual(r.details, { field });
  assert.ok(r.message.startsWith(`${field}: `), r.message);
  return r.message;
}

describe('parseAttachments + userMessageParts', () => {
  it('assembles every type of the spec example into parts, text first', () => {
    const attachments = parsed([
      { type: 'image', url: 'https://example.com/photo.jpg' },
      { type: 'image', mediaType: 'image/png', data: PNG },
      { type: 'audio', format: 'wav', data: WAV },
      { type: 'video', url: 'https://example.com/clip.mp4' },
      { type: 'video', mediaType: 'video/mp4', data: PNG },
      { type: 'file', filename: 'report.pdf', mediaType: 'application/pdf', data: PNG },
      { type: 'file', filename: 'report.pdf', url: 'https://example.com/report.pdf', mediaType: 'application/pdf' },
    ]);
    assert.deepEqual(userMessageParts("What's in this image?", attachments), [
      { type: 'text', text: "What's in this image?" },
      { type: 'image_url', image_url: { url: 'https://example.com/photo.jpg' } },
      { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}` } },
      { type: 'input_audio', input_audio: { data: WAV, format: 'wav' } },
      { type: 'video_url', video_url: { url: 'https://example.com/clip.mp4' } },
      { type: 'video_url', video_url: { url: `data:video/mp4;base64,${PNG}` } },
      { type: 'file', file: { filename: 'report.pdf', file_data: `data:application/pdf;base64,${PNG}` } },
      { type: 'file', file: { filename: 'report.pdf', file_url: 'https://example.com/report.pdf' } },
    ]);
  });

  it('a blank text gets no part; no attachments leaves the text alone', () => {
    const [image] = parsed([{ type: 'image', url: 'https://e.com/a.png' }]);
    assert.deepEqual(userMessageParts('  ', [image!]), [
      { type: 'image_url', image_url: { url: 'https://e.com/a.png' } },
    ]);
    assert.deepEqual(userMessageParts('hi', []), [{ type: 'text', text: 'hi' }]);
  });

  it('url wins over data', () => {
    assert.deepEqual(parsed([{ type: 'image', url: 'https://e.com/a.png', data: PNG, mediaType: 'image/png' }]), [
      { type: 'image', source: { url: 'https://e.com/a.png' } },
    ]);
  });

  it('skips unknown types and audio without data (a url alone included) silently', () => {
    assert.deepEqual(
      parsed([
        { type: 'hologram', whatever: 1 },
        { type: 'audio', format: 'wav' },
        { type: 'audio', url: 'https://e.com/a.wav' },
      ]),
      [],
    );
  });

  it('audio given both url and data sends the data: audio takes base64 only', () => {
    assert.deepEqual(parsed([{ type: 'audio', format: 'mp3', data: WAV, url: 'https://e.com/a.mp3' }]), [
      { type: 'audio', format: 'mp3', data: WAV, url: 'https://e.com/a.mp3' },
    ]);
  });

  it('attachments must be an array of objects with a type', () => {
    failsOn({ type: 'image' }, 'attachments');
    failsOn('x', 'attachments');
    failsOn([null], 'attachments[0]');
    failsOn([[]], 'attachments[0]');
    failsOn([{ type: 'image', url: 'https://e.com/a.png' }, 'x'], 'attachments[1]');
    failsOn([{ url: 'https://e.com/a.png' }], 'attachments[0].type');
    failsOn([{ type: 7 }], 'attachments[0].type');
  });

  it('image, video and file need data or url, and mediaType with data', () => {
    failsOn([{ type: 'image' }], 'attachments[0]');
    failsOn([{ type: 'video', mediaType: 'video/mp4' }], 'attachments[0]');
    failsOn([{ type: 'image', data: PNG }], 'attachments[0].mediaType');
    failsOn([{ type: 'video', data: PNG }], 'attachments[0].mediaType');
    failsOn([{ type: 'file', filename: 'a.pdf', data: PNG }], 'attachments[0].mediaType');
    failsOn([{ type: 'image', data: PNG, mediaType: 'video/mp4' }], 'attachments[0].mediaType');
    failsOn([{ type: 'video', data: PNG, mediaType: 'image/png' }], 'attachments[0].mediaType');
    failsOn([{ type: 'file', filename: 'a', data: PNG, mediaType: 'text/plain;base64,x' }], 'attachments[0].mediaType');
    failsOn([{ type: 'file', filename: 'a', data: PNG, mediaType: 'pdf' }], 'attachments[0].mediaType');
  });

  it('audio needs a format from the listed set', () => {
    for (const format of ['wav', 'mp3', 'aac', 'flac', 'ogg', 'm4a']) parsed([{ type: 'audio', format, data: WAV }]);
    failsOn([{ type: 'audio', data: WAV }], 'attachments[0].format');
    failsOn([{ type: 'audio', data: WAV, format: 'opus' }], 'attachments[0].format');
    failsOn([{ type: 'audio', data: WAV, mediaType: 'audio/wav' }], 'attachments[0].mediaType');
  });

  it('file needs a filename, with data or url', () => {
    failsOn([{ type: 'file', mediaType: 'application/pdf', data: PNG }], 'attachments[0].filename');
    failsOn([{ type: 'file', url: 'https://e.com/r.pdf' }], 'attachments[0].filename');
    failsOn([{ type: 'file', filename: '', url: 'https://e.com/r.pdf' }], 'attachments[0].filename');
  });

  it('url must be http(s)', () => {
    for (const url of ['ftp://e.com/a.png', 'data:image/png;base64,AAAA', 'not a url', 5]) {
      failsOn([{ type: 'image', url }], 'attachments[0].url');
    }
  });

  it('refuses keys the type does not use', () => {
    failsOn([{ type: 'image', url: 'https://e.com/a.png', format: 'wav' }], 'attachments[0].format');
    failsOn([{ type: 'image', url: 'https://e.com/a.png', filename: 'a.png' }], 'attachments[0].filename');
  });

  it('data must be valid base64; line breaks and missing padding are normalized', () => {
    for (const data of ['not base64!', 'QUJD=A', 'Q', 'QUJDRA===', 'QUJDRA=', '']) {
      failsOn([{ type: 'image', mediaType: 'image/png', data }], 'attachments[0].data');
    }
    assert.match(
      failsOn([{ type: 'image', mediaType: 'image/png', data: `data:image/png;base64,${PNG}` }], 'attachments[0].data'),
      /data: URL/,
    );
    failsOn([{ type: 'audio', format: 'wav', data: '%%%' }], 'attachments[0].data');
    // Validated even when the url is what gets sent.
    failsOn([{ type: 'image', url: 'https://e.com/a.png', data: '%%%' }], 'attachments[0].data');

    const wrapped = b64('x'.repeat(200)).replace(/.{76}/g, '$&\n');
    const [a] = parsed([{ type: 'image', mediaType: 'image/png', data: wrapped }]);
    assert.deepEqual(a, { type: 'image', source: { data: b64('x'.repeat(200)), mediaType: 'image/png' } });
    const [unpadded] = parsed([{ type: 'audio', format: 'wav', data: 'QUJDRA' }]);
    assert.equal(unpadded?.type === 'audio' && unpadded.data, 'QUJDRA==');
  });

  it('caps the decoded inline data at 8 MB', () => {
    assert.equal(INLINE_MAX_BYTES, 8 * 1024 * 1024);
    const atCap = Buffer.alloc(INLINE_MAX_BYTES, 1).toString('base64');
    assert.equal(
      parsed([{ type: 'file', filename: 'big.bin', mediaType: 'application/octet-stream', data: atCap }]).length,
      1,
    );
    const overCap = Buffer.alloc(INLINE_MAX_BYTES + 1, 1).toString('base64');
    const message = failsOn(
      [
        { type: 'image', url: 'https://e.com/a.png' },
        { type: 'audio', format: 'wav', data: overCap },
      ],
      'attachments[1].data',
    );
    assert.match(message, /8 MB/);
  });
});
