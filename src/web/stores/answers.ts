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
/**
 * How long an answer's request may go unanswered before it is abandoned and tried again: one sent on a connection the
 * network dropped can hang far longer than any answer takes, and would hold every queued answer behind it.
 */
const ATTEMPT_TIMEOUT_MS = 10_000;

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

/** The answers' requests in flight, each abandoned when the stream drops or the daemon is too slow to answer. */
const inFlight = new Set<AbortController>();
/**
 * Cards whose answer was abandoned in flight: it may have reached the daemon all the same, so the 409 its next
 * attempt meets can be this device's own answer, and is not told as another's (the card's settled state says who).
 */
const unsure = new Set<string>();

/** A 409: the card was settled before this answer arrived, by another device unless an abandoned attempt of ours did. */
function lost(id: string, err: ApiError): void {
  if (!unsure.delete(id)) note(id, { kind: 'elsewhere', ...(err.code ? { code: err.code } : {}) });
}

const abandoned = (err: unknown) => err instanceof DOMException && err.name === 'AbortError';
/** A refusal the same answer would meet again; an abandoned request is not one. */
const refused = (err: unknown) => permanent(err) && !abandoned(err);

async function post(a: QueuedAnswer): Promise<Message> {
  const abandon = new AbortController();
  const timeout = setTimeout(() => abandon.abort(), ATTEMPT_TIMEOUT_MS);
  inFlight.add(abandon);
  try {
    const settled = await (a.body
      ? api.answer(a.agent, a.id, a.body, abandon.signal)
      : api.dismiss(a.agent, a.id, abandon.signal));
    unsure.delete(a.id);
    return settled;
  } catch (err) {
    if (abandon.signal.aborted) unsure.add(a.id);
    throw err;
  } finally {
    clearTimeout(timeout);
    inFlight.delete(abandon);
  }
}

type Outcome = 'done' | 'retry';

/** One attempt: settled, settled elsewhere (409), refused for good, or worth trying again later. */
async function attempt(a: QueuedAnswer): Promise<Outcome> {
  try {
    settle(await post(a));
    return 'done';
  } catch (err) {
    if (await onUnpaired(err)) return 'retry';
    // The card was answered, timed out or withdrawn before this answer arrived: it decided nothing.
    if (err instanceof ApiError && err.status === 409) lost(a.id, err);
    else if (refused(err)) note(a.id, { kind: 'refused', error: err instanceof Error ? err.message : String(err) });
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
      if (err instanceof ApiError && err.status === 409) return lost(m.id, err);
      if (refused(err)) throw err;
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

/** Sends what waits now, not after a backoff left from before. */
function pumpNow(): void {
  if (timer) clearTimeout(timer);
  timer = null;
  tries = 0;
  void pumpAnswers();
}

/**
 * Sends queued answers whenever the stream (re)turns live or the browser is online again, at once. A request in flight
 * when the stream drops is abandoned: begun before an offline spell, it may never return, and would hold the queue.
 */
export function startAnswers(): () => void {
  const stop = effect(() => {
    if (connection.value === 'live') pumpNow();
    else for (const request of inFlight) request.abort();
  });
  window.addEventListener('online', pumpNow);
  return () => {
    stop();
    window.removeEventListener('online', pumpNow);
  };
}
