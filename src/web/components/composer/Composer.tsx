import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { flushDraft, loadDraft, saveDraft } from '../../stores/drafts.js';
import { enqueue, outbox, sending } from '../../stores/outbox.js';
import { restoreStaged, stage, stagedFor, takeStaged } from '../../stores/uploads.js';
import { StagedFiles } from './StagedFiles.js';
import { recordingFor } from '../../stores/recorder.js';
import { MicButton } from '../voice/MicButton.js';
import { RecordingBar, RecordingProblem } from '../voice/RecordingBar.js';
import './composer.css';

/** Tallest the textarea grows before it scrolls, as a share of the viewport (the list keeps the rest). */
const MAX_SHARE = 0.4;
const coarse = () => matchMedia('(pointer: coarse)').matches;

/** What the composer says about this thread's unsent messages, politely announced. */
function status(agent: string): string {
  const mine = outbox.value.filter((e) => e.agent === agent);
  const refused = mine.filter((e) => e.refused).length;
  const waiting = mine.length - refused;
  const parts: string[] = [];
  if (waiting)
    parts.push(
      mine.some((e) => e.client_id === sending.value)
        ? `Sending${waiting > 1 ? ` (${waiting} waiting)` : '…'}`
        : `${waiting} waiting to send`,
    );
  if (refused) parts.push(`${refused} not sent`);
  return parts.join(' · ');
}

/**
 * The message box at the bottom of a thread: a textarea that grows, a paperclip and a Send button. Enter sends on a
 * desktop (Shift+Enter is a newline); with a coarse pointer (a phone) Enter is a newline and the button sends. What is
 * typed is kept per thread (drafts); a send goes to the outbox, which delivers it.
 */
export function Composer({ agent }: { agent: string }) {
  const [text, setText] = useState('');
  const [loaded, setLoaded] = useState(false);
  const area = useRef<HTMLTextAreaElement>(null);
  const picker = useRef<HTMLInputElement>(null);
  const form = useRef<HTMLFormElement>(null);

  useEffect(() => {
    let live = true;
    void loadDraft(agent).then((t) => {
      if (!live) return;
      setText((typed) => typed || t);
      setLoaded(true);
    });
    void restoreStaged(agent);
    return () => {
      live = false;
      void flushDraft(agent);
    };
  }, [agent]);

  // Grows with its text up to MAX_SHARE of the viewport, then scrolls.
  useLayoutEffect(() => {
    const el = area.current;
    if (!el) return;
    el.style.height = 'auto';
    el.style.height = `${Math.min(el.scrollHeight + 2, Math.round(innerHeight * MAX_SHARE))}px`;
  }, [text]);

  // Files dropped anywhere on the thread join the message.
  useEffect(() => {
    const thread = form.current?.closest('.thread');
    if (!thread) return;
    const over = (e: Event) => {
      const d = e as DragEvent;
      if (!d.dataTransfer?.types.includes('Files')) return;
      d.preventDefault();
      thread.classList.add('dropping');
    };
    const leave = () => thread.classList.remove('dropping');
    const drop = (e: Event) => {
      const d = e as DragEvent;
      thread.classList.remove('dropping');
      if (!d.dataTransfer?.files.length) return;
      d.preventDefault();
      stage(agent, d.dataTransfer.files);
    };
    thread.addEventListener('dragover', over);
    thread.addEventListener('dragleave', leave);
    thread.addEventListener('drop', drop);
    return () => {
      thread.removeEventListener('dragover', over);
      thread.removeEventListener('dragleave', leave);
      thread.removeEventListener('drop', drop);
    };
  }, [agent]);

  const files = stagedFor(agent);
  const uploading = files.some((f) => f.uploading);
  const broken = files.some((f) => f.error);
  const empty = !text.trim() && files.length === 0;
  const blocked = empty || uploading || broken;

  const send = () => {
    if (blocked) return;
    const body = text.trim();
    setText('');
    saveDraft(agent, '');
    void flushDraft(agent);
    void enqueue(agent, body, takeStaged(agent)).then(() => {
      // The waiting bubble goes at the end of the list: bring it into view.
      const list = form.current?.closest('.thread')?.querySelector('.messages');
      if (list) list.scrollTop = list.scrollHeight;
    });
    area.current?.focus();
  };

  const onKeyDown = (e: KeyboardEvent) => {
    if (e.key !== 'Enter' || e.shiftKey || e.isComposing || coarse()) return;
    e.preventDefault();
    send();
  };

  const said = status(agent);
  const rec = recordingFor(agent);
  const recordingNow = rec.status === 'starting' || rec.status === 'recording';
  return (
    <form
      class="composer"
      ref={form}
      onSubmit={(e) => {
        e.preventDefault();
        send();
      }}
    >
      <StagedFiles files={files} />
      <p class={`composer-status${said ? '' : ' sr-only'}`} role="status" aria-live="polite" data-composer-status>
        {said}
      </p>
      {rec.status === 'error' && <RecordingProblem message={rec.message} />}
      {/* While recording the bar stands in for the rest of the row (hidden, not unmounted: the draft keeps its
          field); the microphone stays where the thumb is, last. */}
      <div class={`composer-row${recordingNow ? ' is-recording' : ''}`}>
        {recordingNow && <RecordingBar r={rec} />}
        <button
          type="button"
          class="icon-button"
          aria-label="Attach files"
          title="Attach files"
          onClick={() => picker.current?.click()}
        >
          <svg viewBox="0 0 24 24" width="22" height="22" aria-hidden="true">
            <path
              d="M16.5 6.5 8.4 14.6a2 2 0 1 0 2.8 2.8l8.1-8.1a4 4 0 0 0-5.7-5.7L5.5 11.7a6 6 0 0 0 8.5 8.5l6.2-6.2"
              fill="none"
              stroke="currentColor"
              stroke-width="1.8"
              stroke-linecap="round"
            />
          </svg>
        </button>
        <input
          ref={picker}
          type="file"
          multiple
          hidden
          data-picker
          onChange={(e) => {
            const input = e.currentTarget;
            if (input.files?.length) stage(agent, input.files);
            input.value = '';
          }}
        />
        <label class="sr-only" for={`composer-${agent}`}>
          Message to {agent}
        </label>
        <textarea
          id={`composer-${agent}`}
          ref={area}
          rows={1}
          placeholder={loaded ? 'Message' : ''}
          value={text}
          enterkeyhint={coarse() ? 'enter' : 'send'}
          onInput={(e) => {
            const v = e.currentTarget.value;
            setText(v);
            saveDraft(agent, v);
          }}
          onKeyDown={onKeyDown}
        />
        <button type="submit" class="send-button" aria-label="Send" title="Send" disabled={blocked}>
          <svg viewBox="0 0 24 24" width="22" height="22" aria-hidden="true">
            <path d="M4 12 20 4l-6 16-2.5-6.5z" fill="currentColor" />
          </svg>
        </button>
        <MicButton agent={agent} />
      </div>
    </form>
  );
}
