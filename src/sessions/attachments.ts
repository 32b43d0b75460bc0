import { z } from 'zod';
import type { ContentPart } from './engine.js';
import { invalid, zodFailure, type Validated } from './overrides.js';

/**
 * The chat endpoint's `attachments`: validated per item, then assembled into the content parts of this turn's user
 * message only (they are never stored). Rules beyond the spec's letter:
 * - every field present must be valid, even one that precedence then ignores (`data` next to a `url`): a broken field
 *   is answered with a 400 naming it rather than dropped unseen;
 * - keys a type does not use are refused (`format` on an image, `mediaType` on audio), like unknown body fields;
 * - `url` must be http(s): a `data:` URL there would slip past the inline cap;
 * - `data` may carry line breaks (`base64` wraps at 76 columns) and may omit padding; both are normalized away.
 */

/** The inline cap, on the decoded size: 8 MB of content is ~10.7 MB of base64. */
export const INLINE_MAX_BYTES = 8 * 1024 * 1024;

export const AudioFormat = z.enum(['wav', 'mp3', 'aac', 'flac', 'ogg', 'm4a']);

function base64Problem(data: string): string | null {
  if (data === '') return 'must not be empty';
  if (data.startsWith('data:')) return 'must be bare base64, not a data: URL';
  let end = data.length;
  while (end > 0 && data[end - 1] === '=') end--;
  const body = data.slice(0, end);
  const padding = data.length - end;
  const bytes = Math.floor((body.length * 3) / 4);
  if (bytes > INLINE_MAX_BYTES) return `decodes to ${bytes} bytes, over the 8 MB inline cap`;
  const misPadded = padding > 2 || (padding > 0 && data.length % 4 !== 0) || body.length % 4 === 1;
  if (misPadded || !/^[A-Za-z0-9+/]*$/.test(body)) return 'is not valid base64';
  return null;
}

const InlineData = z
  .string()
  .transform((s) => s.replace(/\s+/g, ''))
  .superRefine((data, ctx) => {
    const problem = base64Problem(data);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  })
  .transform((data) => data.padEnd(Math.ceil(data.length / 4) * 4, '='));

const HttpUrl = z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' });
// No `;` or `,`: the type is spliced into a data URL.
const MediaType = z.string().regex(/^[\w.+-]+\/[\w.+-]+$/, 'must be a MIME type such as image/png');
const mediaTypeUnder = (top: string) =>
  MediaType.refine((m) => m.toLowerCase().startsWith(`${top}/`), `must start with ${top}/`);

type Source = { url: string } | { data: string; mediaType: string };

/** `url` wins over `data` (spec); inline data needs its media type to become a data URL. */
function source(item: { url?: string; data?: string; mediaType?: string }, ctx: z.RefinementCtx): Source {
  if (item.url !== undefined) return { url: item.url };
  if (item.data === undefined) {
    ctx.addIssue({ code: 'custom', message: 'one of data or url is required' });
    return z.NEVER;
  }
  if (item.mediaType === undefined) {
    ctx.addIssue({ code: 'custom', path: ['mediaType'], message: 'is required with data' });
    return z.NEVER;
  }
  return { data: item.data, mediaType: item.mediaType };
}

const visual = <T extends 'image' | 'video'>(type: T) =>
  z
    .strictObject({
      type: z.literal(type),
      url: HttpUrl.optional(),
      data: InlineData.optional(),
      mediaType: mediaTypeUnder(type).optional(),
    })
    .transform((item, ctx) => ({ type: item.type, source: source(item, ctx) }));

const SCHEMAS = {
  image: visual('image'),
  video: visual('video'),
  // `url` is tolerated but never used: the audio input part only takes base64.
  audio: z.strictObject({
    type: z.literal('audio'),
    data: InlineData,
    format: AudioFormat,
    url: z.string().optional(),
  }),
  file: z
    .strictObject({
      type: z.literal('file'),
      filename: z.string().min(1),
      url: HttpUrl.optional(),
      data: InlineData.optional(),
      mediaType: MediaType.optional(),
    })
    .transform((item, ctx) => ({ type: item.type, filename: item.filename, source: source(item, ctx) })),
};
type AttachmentType = keyof typeof SCHEMAS;

export type Attachment = z.output<(typeof SCHEMAS)[AttachmentType]>;

const isAttachmentType = (type: string): type is AttachmentType => Object.hasOwn(SCHEMAS, type);

/**
 * Validates `attachments`, answering the ones to send. Skipped without error, as the spec says: unknown `type`
 * values and audio without `data` — which includes audio given only a `url`, since audio accepts base64 alone.
 */
export function parseAttachments(value: unknown): Validated<Attachment[]> {
  if (!Array.isArray(value)) return invalid('attachments', 'must be an array');
  const kept: Attachment[] = [];
  for (const [i, item] of value.entries()) {
    const at = `attachments[${i}]`;
    if (typeof item !== 'object' || item === null || Array.isArray(item)) return invalid(at, 'must be an object');
    const { type, data } = item as { type?: unknown; data?: unknown };
    if (typeof type !== 'string') return invalid(`${at}.type`, 'is required: image, audio, video or file');
    if (!isAttachmentType(type) || (type === 'audio' && data === undefined)) continue;
    const result = SCHEMAS[type].safeParse(item);
    if (!result.success) return zodFailure(at, result.error);
    kept.push(result.data);
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
      return { type: 'input_audio', input_audio: { data: attachment.data, format: attachment.format } };
    case 'file': {
      const { filename, source } = attachment;
      return {
        type: 'file',
        file: 'url' in source ? { filename, file_url: source.url } : { filename, file_data: urlOf(source) },
      };
    }
  }
}

/**
 * This turn's user content: the text first, then one part per attachment. A blank text gets no part of its own:
 * some providers refuse an empty text block, and the request parser only lets it through alongside attachments.
 */
export function userMessageParts(text: string, attachments: Attachment[]): ContentPart[] {
  const parts: ContentPart[] = text.trim() ? [{ type: 'text', text }] : [];
  return [...parts, ...attachments.map(partOf)];
}
