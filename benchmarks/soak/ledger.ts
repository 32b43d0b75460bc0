/**
 * The soak's bookkeeping of what it sent and what came back, fed by the HTTP acknowledgements and by one reference
 * subscriber's events (parsed in full, unlike the load generator's byte scan). Pure: callers pass the times.
 *
 * Every text send carries the load generator's marker (`fanout:<seq>:<ms>`), so a send is known by its seq from its
 * request to its events and its row in the history. The message's text rides in two events (chat.message when it is
 * stored, chat.updated when delivered), so each subscriber should count two markers per send; the reference counts
 * exactly what the load generator's subscribers should have got.
 */
import { MARKER } from '../fanout/protocol.js';
import { quantile } from '../lib/report.js';

const MARKER_SEQ = new RegExp(`${MARKER}(\\d+):`);
const MARKER_ALL = new RegExp(MARKER, 'g');

export const seqOf = (text: string): number | null => {
  const m = MARKER_SEQ.exec(text);
  return m ? Number(m[1]) : null;
};

/** A send or a voice note, from its request to its delivered/failed event (which may beat the 201 to us). */
interface Item {
  sentAt: number;
  status?: number;
  ackedAt?: number;
  id?: string;
  storedAt?: number;
  transcribed?: boolean;
  /** A voice note held for having no words (the test model's transcript is always empty): sent anyway once. */
  held?: boolean;
  settled?: { state: string; at: number };
}

export interface SseFrame {
  event: string;
  data: any;
}

export class Ledger {
  private readonly sends = new Map<number, Item>();
  private readonly notes = new Map<string, Item>();
  private nextSeq = 1;
  private pending = 0;
  private lastSeq: number | null = null;
  /** Events the reference saw whose seq did not follow the one before: each is a lost (or reordered) event. */
  gaps = 0;
  /** Markers in the reference's events: what each load-generator subscriber should also have counted. */
  markers = 0;
  /** System notes the daemon wrote into threads (a failed delivery or transcription says why there). */
  systemNotes = 0;
  /** Voice notes the daemon held for having no words, each with its one system note, as an owner sees them. */
  heldNotes = 0;
  /** Held voice notes the soak has yet to send anyway, as an owner would: taken by `takeHeld`. */
  private readonly toRelease: { agent: string; id: string }[] = [];
  readonly eventsByType = new Map<string, number>();
  /** Requests the daemon refused or that failed on the wire, by what they were and status (0 = no response). */
  readonly httpErrors = new Map<string, number>();

  /** A new send's seq, for its marker. */
  startSend(at: number): number {
    const seq = this.nextSeq++;
    this.sends.set(seq, { sentAt: at });
    return seq;
  }

  ackSend(seq: number, status: number, id: string | undefined, at: number): void {
    this.ack(this.sends.get(seq)!, status, id, at);
    if (status !== 201) this.httpError('send', status);
  }

  /** A voice note acknowledged with its id; its events may already be in under that id. */
  ackNote(id: string, sentAt: number, at: number): void {
    let n = this.notes.get(id);
    if (!n) this.notes.set(id, (n = { sentAt }));
    n.sentAt = sentAt;
    this.ack(n, 201, id, at);
  }

  private ack(item: Item, status: number, id: string | undefined, at: number): void {
    item.status = status;
    item.ackedAt = at;
    if (id) item.id = id;
    if (status === 201 && !item.settled) this.pending++;
  }

  private settle(item: Item, state: string, at: number): void {
    if (item.settled) return;
    item.settled = { state, at };
    if (item.status === 201) this.pending--;
  }

  httpError(what: string, status: number): void {
    const key = `${what} ${status || 'no response'}`;
    this.httpErrors.set(key, (this.httpErrors.get(key) ?? 0) + 1);
  }

  /** One event of the reference subscriber, in arrival order. */
  onEvent(e: SseFrame, at: number): void {
    if (e.event === 'hello') {
      this.lastSeq = e.data.seq;
      return;
    }
    if (this.lastSeq !== null && e.data.seq !== this.lastSeq + 1) this.gaps++;
    this.lastSeq = e.data.seq;
    this.eventsByType.set(e.event, (this.eventsByType.get(e.event) ?? 0) + 1);
    this.markers += JSON.stringify(e.data).match(MARKER_ALL)?.length ?? 0;
    if (e.event !== 'chat.message' && e.event !== 'chat.updated') return;
    const m = e.data.message as {
      id: string;
      agent: string;
      kind: string;
      text: string;
      state: string;
      failure?: string;
    };
    if (m.kind === 'system' && e.event === 'chat.message') this.systemNotes++;
    let item: Item | undefined;
    if (m.kind === 'voice') {
      item = this.notes.get(m.id);
      if (!item) this.notes.set(m.id, (item = { sentAt: at }));
    } else {
      const seq = seqOf(m.text);
      item = seq === null ? undefined : this.sends.get(seq);
    }
    if (!item) return;
    if (e.event === 'chat.message') item.storedAt = at;
    else if (e.data.change === 'transcript') item.transcribed = true;
    else if (m.kind === 'voice' && m.state === 'failed' && m.failure === 'no_speech' && !item.held) {
      item.held = true;
      this.heldNotes++;
      this.toRelease.push({ agent: m.agent, id: m.id });
    } else if (e.data.change === 'state' && m.state !== 'pending') this.settle(item, m.state, at);
  }

  /** The held voice notes not yet sent anyway. */
  takeHeld(): { agent: string; id: string }[] {
    return this.toRelease.splice(0);
  }

  /** Sends and voice notes acknowledged (201) whose delivered or failed event has not arrived yet. */
  backlog(): number {
    return this.pending;
  }

  /** Every acknowledged send: id and seq, for the history check. */
  acknowledged(): Map<string, number> {
    const out = new Map<string, number>();
    for (const [seq, s] of this.sends) if (s.status === 201 && s.id) out.set(s.id, seq);
    return out;
  }

  summary() {
    const acked = [...this.sends.values()].filter((s) => s.status === 201);
    const since = (items: Item[], at: (i: Item) => number | undefined) =>
      items.flatMap((i) => (at(i) === undefined ? [] : [at(i)! - i.sentAt]));
    const ack = since(acked, (s) => s.ackedAt);
    const stored = since(acked, (s) => s.storedAt);
    const delivered = acked.filter((s) => s.settled?.state === 'delivered');
    const deliveredIn = since(delivered, (s) => s.settled!.at);
    const notes = [...this.notes.values()].filter((n) => n.status === 201);
    const notesIn = since(
      notes.filter((n) => n.settled?.state === 'delivered'),
      (n) => n.settled!.at,
    );
    return {
      sends: {
        attempted: this.sends.size,
        acked: acked.length,
        delivered: delivered.length,
        failed: acked.filter((s) => s.settled && s.settled.state !== 'delivered').length,
        unsettled: acked.filter((s) => !s.settled).length,
        ackP50Ms: quantile(ack, 0.5),
        ackP99Ms: quantile(ack, 0.99),
        storedEventP50Ms: quantile(stored, 0.5),
        storedEventP99Ms: quantile(stored, 0.99),
        deliveredP50Ms: quantile(deliveredIn, 0.5),
        deliveredP99Ms: quantile(deliveredIn, 0.99),
      },
      notes: {
        acked: notes.length,
        transcribed: notes.filter((n) => n.transcribed).length,
        held: notes.filter((n) => n.held).length,
        delivered: notesIn.length,
        failed: notes.filter((n) => n.settled && n.settled.state !== 'delivered').length,
        deliveredP50Ms: quantile(notesIn, 0.5),
        deliveredMaxMs: Math.max(0, ...notesIn),
      },
    };
  }
}
