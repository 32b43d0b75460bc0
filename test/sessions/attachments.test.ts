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

  it('url wins over data: the data is neither sent nor judged (issue 29 item 9)', () => {
    assert.deepEqual(parsed([{ type: 'image', url: 'https://e.com/a.png', data: PNG, mediaType: 'image/png' }]), [
      { type: 'image', source: { url: 'https://e.com/a.png' } },
    ]);
    const overCap = Buffer.alloc(INLINE_MAX_BYTES + 1, 1).toString('base64');
    assert.deepEqual(
      parsed([
        { type: 'video', url: 'https://e.com/a.mp4', data: '%%% not base64' },
        { type: 'file', filename: 'r.pdf', url: 'https://e.com/r.pdf', data: overCap },
      ]),
      [
        { type: 'video', source: { url: 'https://e.com/a.mp4' } },
        { type: 'file', filename: 'r.pdf', source: { url: 'https://e.com/r.pdf' } },
      ],
    );
  });

  it('skips unknown types, untyped items and audio without data (a url alone included) silently', () => {
    assert.deepEqual(
      parsed([
        { type: 'hologram', whatever: 1 },
        { url: 'https://e.com/a.png' },
        { type: 7 },
        null,
        'x',
        [],
        { type: 'audio', format: 'wav' },
        { type: 'audio', url: 'https://e.com/a.wav' },
        { type: 'image' },
      ]),
      [],
    );
  });

  it('audio given both url and data sends the data: audio takes base64 only', () => {
    assert.deepEqual(parsed([{ type: 'audio', format: 'mp3', data: WAV, url: 'https://e.com/a.mp3' }]), [
      { type: 'audio', format: 'mp3', data: WAV },
    ]);
  });

  it('attachments must be an array', () => {
    failsOn({ type: 'image' }, 'attachments');
    failsOn('x', 'attachments');
    failsOn(null, 'attachments');
  });

  it('passes everything else to the provider as given, which judges it (issue 29 item 9)', () => {
    assert.deepEqual(
      parsed([
        { type: 'image', data: PNG },
        { type: 'file', data: PNG, mediaType: 'application/pdf', extra: true },
        { type: 'audio', data: WAV, format: 'opus' },
        { type: 'audio', data: WAV },
        { type: 'image', url: 'ftp://e.com/a.png', format: 'wav' },
        { type: 'image', mediaType: 'image/png', data: 'not base64!' },
      ]),
      [
        { type: 'image', source: { data: PNG, mediaType: 'application/octet-stream' } },
        { type: 'file', source: { data: PNG, mediaType: 'application/pdf' } },
        { type: 'audio', data: WAV, format: 'opus' },
        { type: 'audio', data: WAV },
        { type: 'image', source: { url: 'ftp://e.com/a.png' } },
        { type: 'image', source: { data: 'notbase64!==', mediaType: 'image/png' } },
      ],
    );
  });

  it('line breaks and missing padding in data are normalized', () => {
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
    // A data: URL given as the url is inline base64 too.
    failsOn([{ type: 'image', url: `data:image/png;base64,${overCap}` }], 'attachments[0].url');
  });
});
