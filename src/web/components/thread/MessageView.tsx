import type { Message } from '../../../chat/threads/message.js';
import { markdown } from '../../render/markdown-loader.js';
import { AttachmentView } from './AttachmentView.js';

const STATE: Record<string, string> = {
  pending: 'Sending…',
  delivered: 'Delivered',
  failed: 'Not delivered',
  open: 'Waiting for you',
  answered: 'Answered',
  expired: 'Closed',
};

// One formatter for every row: toLocaleTimeString builds a new one per call, which a burst of messages pays per row.
const clock = new Intl.DateTimeFormat([], { hour: '2-digit', minute: '2-digit' });
const time = (ts: string) => clock.format(new Date(ts));

/**
 * One message. Its text is untrusted: the owner's own goes in as text nodes (line breaks kept by CSS); an agent's is
 * markdown, rendered with raw HTML off and sanitized (render/markdown.ts). Asks, permission prompts and questions show as a plain card here: answering them is the
 * action cards' job.
 */
export function MessageView({ m }: { m: Message }) {
  if (m.kind === 'system')
    return (
      <div class="msg msg-system" data-id={m.id} data-kind="system">
        {m.text}
      </div>
    );
  const card = m.kind === 'ask' || m.kind === 'permission';
  // Until the markdown module has loaded (render/markdown-loader.ts), an agent's text shows as plain text.
  const render = markdown.value;
  return (
    <div class={`msg msg-${m.direction} msg-kind-${m.kind}`} data-id={m.id} data-kind={m.kind} data-state={m.state}>
      <div class={card ? 'bubble bubble-card' : 'bubble'}>
        {m.kind === 'task' && <div class="msg-label">Task{m.task ? ` · ${m.task}` : ''}</div>}
        {m.kind === 'permission' && <div class="msg-label">Permission · {m.permission?.tool ?? ''}</div>}
        {m.kind === 'ask' && <div class="msg-label">{m.input?.type === 'questions' ? 'Questions' : 'Asks'}</div>}
        {m.kind === 'voice' && <div class="msg-label">Voice</div>}
        {m.text &&
          (m.direction === 'out' && render ? (
            <div class="msg-text msg-md" dangerouslySetInnerHTML={{ __html: render(m.text) }} />
          ) : (
            <div class="msg-text">{m.text}</div>
          ))}
        {m.permission?.summary && <div class="msg-text">{m.permission.summary}</div>}
        {m.kind === 'voice' && m.transcript && <div class="msg-text msg-transcript">{m.transcript}</div>}
        {m.attachments.map((a) => (
          <AttachmentView key={a.id} agent={m.agent} a={a} />
        ))}
      </div>
      <div class="msg-meta">
        {time(m.ts)}
        {STATE[m.state] && <span class={`msg-state state-${m.state}`}> · {STATE[m.state]}</span>}
      </div>
    </div>
  );
}
