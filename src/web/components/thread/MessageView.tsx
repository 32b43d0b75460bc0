import type { Message } from '../../../wire/message.js';
import { markdown } from '../../render/markdown-loader.js';
import { AttachmentView } from './AttachmentView.js';
import { ActionCard } from '../cards/ActionCard.js';
import { enqueue } from '../../stores/outbox.js';
import { taskHref } from '../../stores/route.js';
import { isPlayable, VoiceMessage } from '../voice/VoiceMessage.js';
import { HeldVoiceNote } from '../voice/HeldVoiceNote.js';
import { NO_SPEECH } from '../../../wire/no-speech.js';
import { showBidiControls } from '../../../wire/visible-text.js';

const STATE: Record<string, string> = {
  pending: 'Sending…',
  delivered: 'Delivered',
  failed: 'Not delivered',
};

// One formatter for every row: toLocaleTimeString builds a new one per call, which a burst of messages pays per row.
const clock = new Intl.DateTimeFormat([], { hour: '2-digit', minute: '2-digit' });
const time = (ts: string) => clock.format(new Date(ts));

/** A failed message again, as a new message (new client id) with the same text and the same files. */
const resend = (m: Message) =>
  enqueue(
    m.agent,
    m.text,
    m.attachments.map((a) => ({ key: a.id, name: a.filename, type: a.mime, size: a.bytes, id: a.id })),
  );

/**
 * One message. Its text is untrusted: the owner's own goes in as text nodes (line breaks kept by CSS); an agent's is
 * markdown, rendered with raw HTML off and sanitized (render/markdown.ts). Asks, permission prompts and questions
 * cards are action cards, answerable here as in the inbox. A failed message says why, with a one-tap Resend;
 * a voice note held for having no words offers Retry and Send anyway instead.
 */
export function MessageView({ m }: { m: Message }) {
  if (m.kind === 'ask' || m.kind === 'permission')
    return (
      <div class="msg msg-out msg-card" data-id={m.id} data-kind={m.kind} data-state={m.state}>
        <ActionCard m={m} />
        <div class="msg-meta">{time(m.ts)}</div>
      </div>
    );
  if (m.kind === 'system')
    return (
      <div class="msg msg-system" data-id={m.id} data-kind="system">
        {showBidiControls(m.text)}
      </div>
    );
  // Until the markdown module has loaded (render/markdown-loader.ts), an agent's text shows as plain text.
  const render = markdown.value;
  const text = showBidiControls(m.text);
  return (
    <div class={`msg msg-${m.direction} msg-kind-${m.kind}`} data-id={m.id} data-kind={m.kind} data-state={m.state}>
      <div class="bubble">
        {m.kind === 'task' && <div class="msg-label">Task{m.task ? ` · ${m.task}` : ''}</div>}
        {m.kind === 'voice' && <div class="msg-label">Voice</div>}
        {m.text &&
          (m.direction === 'out' && render ? (
            <div class="msg-text msg-md" dangerouslySetInnerHTML={{ __html: render(text) }} />
          ) : (
            <div class="msg-text">{text}</div>
          ))}
        {m.kind === 'voice' && <VoiceMessage m={m} />}
        {/* A failure card's `Log:` line names a file on the daemon's machine; the app opens that log itself. */}
        {m.kind === 'task' && m.task && m.run_id && /^Log: /m.test(m.text) && (
          <a class="task-log-link" href={taskHref(m.task, m.run_id)}>
            Open the log
          </a>
        )}
        {m.attachments
          .filter((a) => m.kind !== 'voice' || !isPlayable(a))
          .map((a) => (
            <AttachmentView key={a.id} agent={m.agent} a={a} />
          ))}
      </div>
      <div class="msg-meta">
        {time(m.ts)}
        {STATE[m.state] && <span class={`msg-state state-${m.state}`}> · {STATE[m.state]}</span>}
      </div>
      {m.state === 'failed' && m.failure === NO_SPEECH && <HeldVoiceNote m={m} />}
      {m.state === 'failed' && m.direction === 'in' && m.failure !== NO_SPEECH && (
        <div class="msg-failure">
          {m.failure && <p class="msg-why">{m.failure}</p>}
          <button type="button" class="resend" onClick={() => void resend(m)}>
            Resend
          </button>
        </div>
      )}
    </div>
  );
}
