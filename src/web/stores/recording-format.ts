/** What a recorder makes and what its file is called. Pure: the browser's support is handed in. */

export interface RecordingFormat {
  /** Passed to MediaRecorder; '' lets the browser choose. */
  mimeType: string;
  ext: string;
}

/**
 * Chromium and Firefox record Opus in WebM, Safari AAC in MP4 (an .m4a file, as iPhones name voice memos). The daemon
 * recognises audio by its bytes, so the name only has to be right for a person downloading it.
 */
const PREFERRED: readonly RecordingFormat[] = [
  { mimeType: 'audio/webm;codecs=opus', ext: 'webm' },
  { mimeType: 'audio/mp4', ext: 'm4a' },
];

export function pickFormat(isTypeSupported: (type: string) => boolean): RecordingFormat {
  return PREFERRED.find((f) => isTypeSupported(f.mimeType)) ?? { mimeType: '', ext: 'webm' };
}

/** The extension for what the recorder really produced (its `mimeType` once started, which may differ from asked). */
export function extensionFor(mimeType: string, fallback: string): string {
  if (/^audio\/(mp4|aac|x-m4a)/.test(mimeType)) return 'm4a';
  if (/^audio\/ogg/.test(mimeType)) return 'ogg';
  if (/^audio\/webm/.test(mimeType)) return 'webm';
  return fallback;
}

const two = (n: number) => String(n).padStart(2, '0');

/** `voice-note-20261201-172301.webm`, in local time: sortable and unique enough within a thread. */
export function noteName(at: Date, ext: string): string {
  const day = `${at.getFullYear()}${two(at.getMonth() + 1)}${two(at.getDate())}`;
  return `voice-note-${day}-${two(at.getHours())}${two(at.getMinutes())}${two(at.getSeconds())}.${ext}`;
}

/** 0:07, 1:23, 12:05: whole seconds, rounded down (a timer never shows a second not yet recorded). */
export function clockTime(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  return `${Math.floor(s / 60)}:${two(s % 60)}`;
}
