import { useState } from 'preact/hooks';
import { awaitsOwner, type Message } from '../../../wire/message.js';
import { AskCard } from './AskCard.js';
import { PermissionCard } from './PermissionCard.js';
import { PermissionInput } from './PermissionInput.js';
import { QuestionsCard } from './QuestionsCard.js';
import { Settled } from './Settled.js';
import { AnswerStatus } from './AnswerStatus.js';
import { threadHref } from '../../stores/route.js';
import { showBidiControls } from '../../../wire/visible-text.js';
import { AgentLabel } from '../hosts/AgentLabel.js';
import './cards.css';

/**
 * One ask, permission prompt or questions card: answerable while open, its settlement after. In the inbox its agent's
 * tag links to the card in that agent's thread.
 */
export function ActionCard({ m, showAgent = false }: { m: Message; showAgent?: boolean }) {
  // A prompt whose chat wait ended is still answered in the agent's terminal dialog while that is up.
  const open = awaitsOwner(m);
  // Opening a prompt's whole input is what lets its Allow show (issue 28), so the card holds it for both parts.
  const [whole, setWhole] = useState(false);
  return (
    <article class={`action-card${open ? '' : ' closed'}`} data-id={m.id} aria-label={`${m.kind} from ${m.agent}`}>
      <header>
        {showAgent && (
          <a class="tag" href={threadHref(m.agent, m.id)} aria-label={`Open in ${m.agent}'s thread`}>
            <AgentLabel name={m.agent} />
          </a>
        )}
        <span class="muted">
          {m.kind === 'permission' ? 'Permission' : m.input?.type === 'questions' ? 'Questions' : 'Ask'}
        </span>
      </header>
      {/* A prompt's text repeats its permission line, a card's its questions: each shows those instead. */}
      {m.text && m.kind !== 'permission' && m.input?.type !== 'questions' && (
        <p class="question">{showBidiControls(m.text)}</p>
      )}
      {m.permission && <PermissionInput p={m.permission} whole={whole} onOpen={() => setWhole(true)} />}
      {m.input?.type === 'questions' && !open && <p class="question">{showBidiControls(m.text)}</p>}
      {m.state !== 'open' && open && (
        <p class="terminal-waiting" role="status">
          Timed out in chat — the agent is still waiting in its terminal
        </p>
      )}
      {!open ? (
        <Settled m={m} />
      ) : m.kind === 'permission' ? (
        <PermissionCard m={m} whole={whole} />
      ) : m.input?.type === 'questions' ? (
        <QuestionsCard m={m} input={m.input} />
      ) : m.input ? (
        <AskCard m={m} input={m.input} />
      ) : null}
      <AnswerStatus m={m} />
    </article>
  );
}
