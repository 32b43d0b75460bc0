import type { ContentPart } from '../core/chat-engine.js';
import { invalid, type Validated } from './overrides.js';

/**
 * The chat endpoint's `attachments`, read as the spec writes them, then assembled into the content parts of this
 * turn's user message only (they are never stored). The only faults answered with a 400 are the spec's: the list is
 * not an array, or an attachment's inline base64 is over the cap. Everything else passes through to the provider,
 * which "will return an error if not supported" (the spec's words): url wins over data, unknown types and audio
 * without data are skipped, and so is an image, video or file that gives neither data nor url (there is nothing to
 * send). Fields of the wrong type count as absent. `data` may carry line breaks (`base64` wraps at 76 columns) and
 * omit its padding; both are normalized away.
 */

/** The inline cap, on the decoded size: 8 MB of content is ~10.7 MB of base64. */
export const INLINE_MAX_BYTES = 8 * 1024 * 1024;

type Source = { url: string } | { data: string; mediaType: string };

export type Attachment =
  | { type: 'image' | 'video'; source: Source }
  | { type: 'file'; filename?: string; source: Source }
  | { type: 'audio'; data: string; format?: string };

const TYPES = new Set(['image', 'audio', 'video', 'file']);

const text = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

/** Without whitespace, padded to whole quads: what a data URL and the audio part carry. */
function normalized(data: string): string {
  const bare = data.replace(/\s+/g, '');
  return bare.padEnd(Math.ceil(bare.length / 4) * 4, '=');
}

function decodedBytes(base64: string): number {
  const body = base64.replace(/=+$/, '');
  return Math.floor((body.length * 3) / 4);
}

const OVER_CAP = (bytes: number) => `decodes to ${bytes} bytes, over the 8 MB inline cap`;

/** A `data:` URL in `url` is inline base64 too, so the cap holds there as well. */
function inlineUrlBytes(url: string): number {
  const comma = url.indexOf(',');
  return /^data:[^,]*;base64,/i.test(url) ? decodedBytes(url.slice(comma + 1).replace(/\s+/g, '')) : 0;
}

/**
 * The attachments to send, in order. Skipped without error: items that are not objects, unknown or missing `type`s,
 * audio without `data` (audio takes base64 alone, so a `url` there is ignored) and other types with neither.
 */
export function parseAttachments(value: unknown): Validated<Attachment[]> {
  if (!Array.isArray(value)) return invalid('attachments', 'must be an array');
  const kept: Attachment[] = [];
  for (const [i, item] of value.entries()) {
    if (typeof item !== 'object' || item === null || Array.isArray(item)) continue;
    const fields = item as Record<string, unknown>;
    const type = fields.type;
    if (typeof type !== 'string' || !TYPES.has(type)) continue;
    const at = `attachments[${i}]`;
    const url = type === 'audio' ? undefined : text(fields.url);
    const raw = text(fields.data);
    if (url !== undefined) {
      const bytes = inlineUrlBytes(url);
      if (bytes > INLINE_MAX_BYTES) return invalid(`${at}.url`, OVER_CAP(bytes));
    }
    const data = url === undefined && raw !== undefined ? normalized(raw) : undefined;
    if (data !== undefined && decodedBytes(data) > INLINE_MAX_BYTES)
      return invalid(`${at}.data`, OVER_CAP(decodedBytes(data)));
    if (type === 'audio') {
      if (data === undefined) continue;
      const format = text(fields.format);
      kept.push({ type, data, ...(format !== undefined ? { format } : {}) });
      continue;
    }
    if (url === undefined && data === undefined) continue;
    // A data URL needs a media type; without one the provider gets the generic one and judges the bytes itself.
    const source: Source =
      url !== undefined ? { url } : { data: data!, mediaType: text(fields.mediaType) ?? 'application/octet-stream' };
    if (type === 'file') {
      const filename = text(fields.filename);
      kept.push({ type, ...(filename !== undefined ? { filename } : {}), source });
    } else kept.push({ type: type as 'image' | 'video', source });
  }
  return { ok: true, value: kept };
}

const urlOf = (source: Source) => ('url' in source ? source.url : `data:${source.mediaType};base64,${source.data}`);

function partOf(attachment: Attachment): ContentPart {
  switch (attachment.type) {
    case 'image':
      return { type: 'image_url', image_url: { url: urlOf(attachment.source) } };
    case 'video':
      return { type: 'video_url', video_url: { url: urlOf(attachment.source) } };
    case 'audio':
      return {
        type: 'input_audio',
        input_audio: {
          data: attachment.data,
          ...(attachment.format !== undefined ? { format: attachment.format } : {}),
        },
      };
    case 'file': {
      const { source } = attachment;
      const named = attachment.filename !== undefined ? { filename: attachment.filename } : {};
      return {
        type: 'file',
        file: 'url' in source ? { ...named, file_url: source.url } : { ...named, file_data: urlOf(source) },
      };
    }
  }
}

/**
 * This turn's user content: the text first, then one part per attachment. A blank text gets no part of its own:
 * some providers refuse an empty text block.
 */
export function userMessageParts(text: string, attachments: Attachment[]): ContentPart[] {
  const parts: ContentPart[] = text.trim() ? [{ type: 'text', text }] : [];
  return [...parts, ...attachments.map(partOf)];
}
