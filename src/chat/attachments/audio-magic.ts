/**
 * What a file's first bytes say about it being audio. Pure: the caller reads the head (HEAD_BYTES are enough).
 * - `audio`: a format that only carries sound (FLAC, WAV, MP3 with ID3, ADTS AAC, CAF, an M4A-branded MP4, Ogg whose
 *   first stream is Opus, Vorbis or FLAC);
 * - `container`: one that may carry video as well (WebM/Matroska, other MP4 brands, any other Ogg, a bare MPEG frame
 *   sync): ffprobe is the judge;
 * - `other`: a known format that is not audio (named, for the note that says so);
 * - `unknown`: nothing recognised.
 */
export type MediaSniff =
  | { verdict: 'audio' | 'container'; mime: string; format: string }
  | { verdict: 'other'; format: string }
  | { verdict: 'unknown' };

/** What the pool's audio judge (workers/audio-judge.ts) is sent. */
export interface JudgeAudioInput {
  file: string;
  /** ffprobe, the judge when the first bytes are unsure; without it such a file counts as audio (ffmpeg decides). */
  ffprobe: string | null;
}

/** mime: the audio type the bytes name; null when only ffprobe recognised them (or could not be asked). */
export type AudioVerdict = { audio: true; mime: string | null } | { audio: false; why: string };

/** How much of a file sniffMedia looks at (Ogg's first stream header ends by byte 36). */
export const HEAD_BYTES = 64;

const ascii = (head: Buffer, at: number, text: string): boolean =>
  head.length >= at + text.length && head.toString('latin1', at, at + text.length) === text;

/** Formats people send that are plainly not audio, for "it is a PNG image". */
const OTHER: { at: number; magic: string; format: string }[] = [
  { at: 0, magic: '\x89PNG', format: 'a PNG image' },
  { at: 0, magic: '\xff\xd8\xff', format: 'a JPEG image' },
  { at: 0, magic: 'GIF8', format: 'a GIF image' },
  { at: 0, magic: '%PDF', format: 'a PDF document' },
  { at: 0, magic: 'PK\x03\x04', format: 'a ZIP archive' },
  { at: 0, magic: '\x1f\x8b', format: 'a gzip archive' },
];

/** MPEG-1/2 audio frame header (layer I–III): 11 sync bits, a real layer, bitrate and sample rate. */
function mpegFrame(head: Buffer): boolean {
  if (head.length < 4 || head[0] !== 0xff || (head[1]! & 0xe0) !== 0xe0) return false;
  const layer = (head[1]! >> 1) & 3;
  const bitrate = head[2]! >> 4;
  const rate = (head[2]! >> 2) & 3;
  return layer !== 0 && bitrate !== 15 && rate !== 3;
}

export function sniffMedia(head: Buffer): MediaSniff {
  if (ascii(head, 0, 'fLaC')) return { verdict: 'audio', mime: 'audio/flac', format: 'FLAC' };
  if (ascii(head, 0, 'RIFF') && ascii(head, 8, 'WAVE')) return { verdict: 'audio', mime: 'audio/wav', format: 'WAV' };
  if (ascii(head, 0, 'ID3')) return { verdict: 'audio', mime: 'audio/mpeg', format: 'MP3' };
  if (ascii(head, 0, 'caff')) return { verdict: 'audio', mime: 'audio/x-caf', format: 'CAF' };
  // ADTS: a sync word with layer 00 (FFF1 MPEG-4, FFF9 MPEG-2, no CRC; FFF0/FFF8 with one).
  if (head.length >= 2 && head[0] === 0xff && (head[1]! & 0xf6) === 0xf0)
    return { verdict: 'audio', mime: 'audio/aac', format: 'AAC (ADTS)' };
  if (ascii(head, 0, 'OggS')) {
    // The first page's packet starts at 28 when it has one segment (every codec's identification header does).
    const audio = ascii(head, 28, 'OpusHead') || ascii(head, 28, '\x01vorbis') || ascii(head, 28, '\x7fFLAC');
    return { verdict: audio ? 'audio' : 'container', mime: 'audio/ogg', format: 'Ogg' };
  }
  if (head.length >= 4 && head.readUInt32BE(0) === 0x1a45dfa3)
    return { verdict: 'container', mime: 'audio/webm', format: 'WebM/Matroska' };
  if (ascii(head, 4, 'ftyp')) {
    const brand = head.toString('latin1', 8, 12);
    const audio = brand === 'M4A ' || brand === 'M4B ';
    return { verdict: audio ? 'audio' : 'container', mime: 'audio/mp4', format: 'MP4' };
  }
  if (mpegFrame(head)) return { verdict: 'container', mime: 'audio/mpeg', format: 'MPEG audio' };
  const other = OTHER.find((o) => ascii(head, o.at, o.magic));
  return other ? { verdict: 'other', format: other.format } : { verdict: 'unknown' };
}
