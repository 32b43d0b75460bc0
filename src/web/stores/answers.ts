import { effect, signal } from '@preact/signals';
import type { AnswerBody } from '../../wire/ask-answer.js';
import type { Message } from '../../wire/message.js';
import { ApiError } from '../api/client.js';
import { api, onUnpaired } from './auth.js';
import { connection } from './connection.js';
import { settle } from './inbox.js';
import { permanent } from './outbox.js';

/**
 * A card's answer (or dismissal) the daemon has not taken yet: tapped offline, or while the daemon was down. Kept in
 * localStorage (a few hundred bytes each, read synchronously at start), so a reload keeps it too.
 */
export interface QueuedAnswer {
  id: string;
  agent: string;
  /** null: the card is dismissed rather than answered. */
  body: AnswerBody | null;
  created: number;
}

/**
 * What became of an answer that did not settle its card: the card was settled first (`code`: the daemon's 409 code,
 * which says where — another device, the agent's terminal — when it knows), or refused.
 */
export type AnswerNote = { kind: 'elsewhere'; code?: string } | { kind: 'refused'; error: string };

const KEY = 'leo.answers';
const BACKOFF_MS = [1000, 2000, 5000, 10_000, 30_000];

function load(): ReadonlyMap<string, QueuedAnswer> {
  try {
    const all = JSON.parse(localStorage.getItem(KEY) ?? '[]') as QueuedAnswer[];
    return new Map(all.map((a) => [a.id, a]));
  } catch {
    return new Map();
  }
}

/** Queued answers by card id. */
export const queuedAnswers = signal<ReadonlyMap<string, QueuedAnswer>>(load());
/** Answers that went but did not decide, by card id: shown on the card until the page reloads. */
export const answerNotes = signal<ReadonlyMap<string, AnswerNote>>(new Map());

function setQueued(next: Map<string, QueuedAnswer>): void {
  queuedAnswers.value = next;
  localStorage.setItem(KEY, JSON.stringify([...next.values()]));
}

function unqueue(id: string): void {
  if (!queuedAnswers.value.has(id)) return;
  const next = new Map(queuedAnswers.value);
  next.delete(id);
  setQueued(next);
}

function note(id: string, n: AnswerNote | null): void {
  const next = new Map(answerNotes.value);
  if (n) next.set(id, n);
  else next.delete(id);
  answerNotes.value = next;
}

const lost = (err: ApiError): AnswerNote => ({ kind: 'elsewhere', ...(err.code ? { code: err.code } : {}) });

const post = (a: QueuedAnswer) => (a.body ? api.answer(a.agent, a.id, a.body) : api.dismiss(a.agent, a.id));

type Outcome = 'done' | 'retry';

/** One attempt: settled, settled elsewhere (409), refused for good, or worth trying again later. */
async function attempt(a: QueuedAnswer): Promise<Outcome> {
  try {
    settle(await post(a));
    return 'done';
  } catch (err) {
    if (await onUnpaired(err)) return 'retry';
    // The card was answered, timed out or withdrawn before this answer arrived: it decided nothing.
    if (err instanceof ApiError && err.status === 409) note(a.id, lost(err));
    else if (permanent(err)) note(a.id, { kind: 'refused', error: err instanceof Error ? err.message : String(err) });
    else return 'retry';
    return 'done';
  }
}

/**
 * Answers a card: now while the stream is live, else (or when the request cannot reach the daemon) queued and sent
 * once when the stream is live again. Rejects with the daemon's refusal of this answer (a 4xx other than 409), which
 * the card shows as it does today. Every card answers through here, so a card's form never handles the network.
 */
export async function submitAnswer(m: Message, body: AnswerBody | null): Promise<void> {
  note(m.id, null);
  const a: QueuedAnswer = { id: m.id, agent: m.agent, body, created: Date.now() };
  if (connection.peek() === 'live') {
    try {
      settle(await post(a));
      return;
    } catch (err) {
      if (await onUnpaired(err)) return;
      if (err instanceof ApiError && err.status === 409) return note(m.id, lost(err));
      if (permanent(err)) throw err;
    }
  }
  setQueued(new Map(queuedAnswers.value).set(a.id, a));
  if (connection.peek() === 'live') schedule();
}

/** Takes back a queued answer before it goes. */
export const cancelAnswer = (id: string): void => unqueue(id);

let running = false;
let tries = 0;
let timer: ReturnType<typeof setTimeout> | null = null;

function schedule(): void {
  if (timer) return;
  timer = setTimeout(
    () => {
      timer = null;
      void pumpAnswers();
    },
    BACKOFF_MS[Math.min(tries++, BACKOFF_MS.length - 1)]!,
  );
}

/** Sends what waits, oldest first, while the stream is live; each one goes once (the daemon settles a card once). */
async function pumpAnswers(): Promise<void> {
  if (running) return;
  running = true;
  try {
    for (const a of [...queuedAnswers.value.values()].sort((x, y) => x.created - y.created)) {
      if (connection.peek() !== 'live') return;
      if ((await attempt(a)) === 'retry') return schedule();
      unqueue(a.id);
      tries = 0;
    }
  } finally {
    running = false;
  }
}

/** Sends queued answers whenever the stream (re)turns live. */
export function startAnswers(): () => void {
  return effect(() => {
    if (connection.value === 'live') {
      tries = 0;
      void pumpAnswers();
    }
  });
}
