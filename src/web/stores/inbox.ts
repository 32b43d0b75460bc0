import { computed, signal } from '@preact/signals';
import { validateAnswer, type AnswerBody } from '../../wire/ask-answer.js';
import { validateQuestionsAnswer } from '../../wire/questions.js';
import { validatePermissionAnswer } from '../../wire/permission.js';
import { awaitsOwner, type Message } from '../../wire/message.js';
import type { FleetEvent } from '../api/events.js';

/**
 * Everything waiting on the owner across agents (GET /api/v1/chat/open), kept live by chat.message / chat.updated.
 * A card settled while shown stays, with its settlement, until the next snapshot, so the owner sees what happened.
 */
export const cards = signal<ReadonlyMap<string, Message>>(new Map());

/** Newest first (ids grow with time). */
export const inbox = computed(() => [...cards.value.values()].sort((a, b) => (a.id < b.id ? 1 : -1)));
export const openCount = computed(() => inbox.value.filter(awaitsOwner).length);
/** Agents with a prompt, ask or questions card open: the fleet says they need the owner rather than working/idle. */
export const waitingOnOwner = computed(() => new Set(inbox.value.filter(awaitsOwner).map((m) => m.agent)));

export function applyOpen(open: readonly Message[]): void {
  cards.value = new Map(open.map((m) => [m.id, m]));
}

export function isCard(m: Message): boolean {
  return m.kind === 'permission' || m.kind === 'ask';
}

/** A new open card joins; an update replaces a card already shown (settled ones stay, showing how). */
export function applyChatEvent(e: FleetEvent): void {
  if (e.type !== 'chat.message' && e.type !== 'chat.updated') return;
  const m = e.data.message;
  if (!isCard(m)) return;
  if (!cards.value.has(m.id) && !awaitsOwner(m)) return;
  const next = new Map(cards.value);
  next.set(m.id, m);
  cards.value = next;
}

export function settle(m: Message): void {
  if (!cards.value.has(m.id)) return;
  const next = new Map(cards.value);
  next.set(m.id, m);
  cards.value = next;
}

/** The daemon's own check for this card (the shared validators), so the app refuses exactly what the daemon would. */
export function checkAnswer(m: Message, body: AnswerBody): string | null {
  if (m.kind === 'permission') {
    const r = validatePermissionAnswer(body);
    return r.ok ? null : r.error;
  }
  if (!m.input) return 'this card has no input';
  const r = m.input.type === 'questions' ? validateQuestionsAnswer(m.input, body) : validateAnswer(m.input, body);
  return r.ok ? null : r.error;
}
