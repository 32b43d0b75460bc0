import { useEffect, useRef, useState } from 'preact/hooks';
import { clockTime } from '../../stores/recording-format.js';
import './voice.css';

/**
 * Notes already fetched or recorded here, by attachment id: a virtualized row that scrolls back into view, or the
 * note that just left the outbox, plays without downloading again. Small: voice notes are a few KB a second.
 */
const notes = new Map<string, { blob: Promise<Blob>; ms?: number }>();
const KEEP = 30;

function remember(id: string, blob: Promise<Blob>, ms?: number): void {
  notes.delete(id);
  notes.set(id, { blob, ...(ms === undefined ? {} : { ms }) });
  if (notes.size > KEEP) notes.delete(notes.keys().next().value!);
}

/**
 * How long a recording is, from its decoded audio: a browser's WebM recording carries no duration in its header
 * (`<audio>.duration` reads Infinity), so the element cannot be asked. An OfflineAudioContext needs no user gesture.
 */
async function measure(blob: Blob): Promise<number | undefined> {
  try {
    const audio = await new OfflineAudioContext(1, 1, 48_000).decodeAudioData(await blob.arrayBuffer());
    return audio.duration * 1000;
  } catch {
    return undefined;
  }
}

/** A total as people read it: rounded, and never 0:00 for a note that has sound. */
const total = (ms: number) => clockTime(Math.max(1000, Math.round(ms / 1000) * 1000));

export interface VoiceNoteProps {
  /** The bytes, or how to fetch them; read once, when the player mounts. Absent: the duration alone is shown. */
  source?: Blob | (() => Promise<Blob>);
  /** The length when known (the recorder's); otherwise measured from the audio. */
  durationMs?: number;
  /** The attachment id, once the daemon has one: the bytes and length are remembered under it. */
  id?: string;
}

/**
 * A voice note's player: play/pause, progress, elapsed and total time. The audio plays from a blob URL (the bytes
 * come through the authenticated client, which an <audio src> cannot be; the CSP's `media-src blob:` allows it).
 */
export function VoiceNote({ source, durationMs, id }: VoiceNoteProps) {
  const known = id ? notes.get(id) : undefined;
  const [ms, setMs] = useState<number | undefined>(durationMs ?? known?.ms);
  const [url, setUrl] = useState<string | null>(null);
  const [playing, setPlaying] = useState(false);
  const [at, setAt] = useState(0);
  const audio = useRef<HTMLAudioElement>(null);
  const blob = useRef<Promise<Blob> | null>(null);

  // The source is read once: an outbox entry drops its bytes once uploaded, and the player keeps them.
  useEffect(() => {
    const got = known?.blob ?? (source instanceof Blob ? Promise.resolve(source) : source ? source() : null) ?? null;
    if (!got) return;
    blob.current = got;
    let live = true;
    let made: string | null = null;
    void got
      .then(async (b) => {
        if (!live) return;
        made = URL.createObjectURL(b);
        setUrl(made);
        if (ms === undefined) {
          const measured = await measure(b);
          if (live && measured !== undefined) setMs(measured);
        }
      })
      .catch(() => undefined);
    return () => {
      live = false;
      audio.current?.pause();
      if (made) URL.revokeObjectURL(made);
    };
  }, []);

  useEffect(() => {
    if (id && blob.current) remember(id, blob.current, ms);
  }, [id, ms, url]);

  const toggle = () => {
    const el = audio.current;
    if (!el) return;
    if (el.paused) void el.play().catch(() => setPlaying(false));
    else el.pause();
  };
  const fraction = ms ? Math.min(1, (at * 1000) / ms) : 0;
  return (
    <div class="voice-note" data-voice-note data-duration-ms={ms === undefined ? undefined : Math.round(ms)}>
      <button
        type="button"
        class="voice-play"
        aria-label={playing ? 'Pause voice note' : 'Play voice note'}
        disabled={!url}
        onClick={toggle}
      >
        <svg viewBox="0 0 24 24" width="20" height="20" aria-hidden="true">
          {playing ? (
            <path d="M7 5h3.5v14H7zM13.5 5H17v14h-3.5z" fill="currentColor" />
          ) : (
            <path d="M8 5.5v13l10.5-6.5z" fill="currentColor" />
          )}
        </svg>
      </button>
      <progress class="voice-progress" max={1000} value={Math.round(fraction * 1000)} aria-hidden="true" />
      <span class="voice-time" data-voice-time>
        {playing || at > 0 ? `${clockTime(at * 1000)} / ` : ''}
        {ms === undefined ? '–:––' : total(ms)}
      </span>
      {url && (
        <audio
          ref={audio}
          src={url}
          preload="metadata"
          onPlay={() => setPlaying(true)}
          onPause={() => setPlaying(false)}
          onEnded={() => {
            setPlaying(false);
            setAt(0);
          }}
          onTimeUpdate={(e) => setAt(e.currentTarget.currentTime)}
        />
      )}
    </div>
  );
}
