import { ulid } from 'ulid';
import type { Clock, TimerHandle } from '../../../core/clock.js';
import { LeoError, notFound } from '../../../core/leo-error.js';
import type { Logger } from '../../../core/logger.js';
import { rfc3339 } from '../../../core/time.js';
import type { AgentPack } from '../../../wire/agent-pack.js';
import type { CopyBody, MoveBody, MoveOperation, MoveUndo } from '../../../wire/move.js';
import { HostRefusedError, HostUnreachableError } from '../../host-client.js';
import { hostUnreachable } from '../../proxy/proxy-rules.js';
import { moveRequest, refusalAtSource, refusalAtTarget, sameHost, targetName } from '../refusals.js';
import { faultOf, onSide, SideFailure, type MoveSideName } from './move-faults.js';
import type { Machine, MoveFacts } from './move-facts.js';
import { actionOf, nextMove, startMove, type MoveAction, type MoveEvent } from './move-machine.js';
import type { MoveSide } from './move-sides.js';
import type { MoveStore } from './move-store.js';
import { ship } from './move-shipment.js';

export interface MoveRunnerDeps {
  store: MoveStore;
  facts: MoveFacts;
  /** The daemon a move talks to on a machine (null: the hub's own). */
  sides(machine: Machine): MoveSide;
  /** Tells every reader the operation as it now is (the move_progress event). */
  publish(op: MoveOperation): void;
  clock: Clock;
  logger: Logger;
}

/** A failed call is done again after this, doubling each time up to RETRY_MAX_MS. */
const RETRY_FIRST_MS = 1_000;
const RETRY_MAX_MS = 30_000;

const UNDOS: readonly MoveAction[] = ['resume_source', 'discard_target'] satisfies MoveUndo[];

/**
 * The hub's side of a move or copy (issue 32): refuses one before anything changes, then drives the operation's
 * state machine (move-machine.ts) through the two machines' MoveSides, saving and publishing after every transition.
 * A call that fails is a fault the machine turns into its undo; an undo owed, or the source's mark once the target
 * runs, is done again with a capped backoff until it goes through, since exactly one agent running depends on it. A
 * hub that restarts resumes every unsettled operation where its row says (the implicit hub_killed).
 */
export class MoveRunner {
  private readonly driving = new Map<string, Promise<void>>();
  /** Each operation's pack as the ship step got it, for the spawn; asked again of the source after a restart. */
  private readonly packs = new Map<string, AgentPack>();
  private readonly pauses = new Set<{ timer: TimerHandle; wake(): void }>();
  private stopped = false;

  constructor(private readonly deps: MoveRunnerDeps) {}

  /** Starts a move or copy of `agent` (`name` or `name@host`), or throws why not with nothing changed. */
  async start(kind: MoveOperation['kind'], agent: string, body: MoveBody | CopyBody): Promise<MoveOperation> {
    const { store, facts } = this.deps;
    const req = moveRequest(kind, agent, body);
    const from = facts.machineOf(req.agent);
    const to = facts.machineTo(req.to);
    const source = { ...facts.source(req.agent), underWay: store.unsettledOn(req.agent) };
    const refused = refusalAtSource(req, source) ?? (kind === 'move' && from === to ? sameHost(req) : null);
    if (refused) throw refused;
    const target = await facts.target(to);
    // Another start of the same agent may have begun while the target answered.
    const refusal =
      refusalAtTarget(req, source, target) ??
      refusalAtSource(req, { ...source, underWay: store.unsettledOn(req.agent) });
    if (refusal) throw refusal;
    const op = startMove({
      id: ulid(),
      kind,
      agent: req.agent,
      to: req.to,
      as: targetName(req),
      force: req.force,
      now: this.now(),
    });
    await this.measure(from, op);
    this.commit(op);
    this.drive(op);
    return op;
  }

  /**
   * The source's workspace against its size limit, before anything changes: over it, the start is refused with
   * 409 workspace_too_large naming the size, as the issue asks, instead of failing once the source is parked.
   */
  private async measure(from: Machine, op: MoveOperation): Promise<void> {
    try {
      await this.deps.sides(from).measure(op);
    } catch (err) {
      if (err instanceof HostRefusedError && err.hostCode === 'workspace_too_large')
        throw new LeoError(409, err.message, 'workspace_too_large');
      if (err instanceof HostUnreachableError) throw hostUnreachable(from ?? 'this hub', err.why);
      throw err;
    }
  }

  /** A failed operation again from its first step, once its undo is done (409 move_state otherwise). */
  retry(id: string): MoveOperation {
    const op = nextMove(this.get(id), { type: 'retry' }, this.now());
    this.commit(op);
    this.drive(op);
    return op;
  }

  get(id: string): MoveOperation {
    const op = this.deps.store.get(id);
    if (!op) throw notFound(`no move or copy with id "${id}"`);
    return op;
  }

  /** Every operation on `agent` (its address), newest first. */
  of(agent: string): MoveOperation[] {
    return this.deps.store.of(agent);
  }

  /** Resumes every operation with work left, as a hub coming back finds them. */
  resume(): void {
    for (const op of this.deps.store.unsettled()) this.drive(op);
  }

  /**
   * Stops driving: waits end, and a call still out is left to finish unrecorded; its operation's row stays where it
   * was, and the next hub does that step again (every call is idempotent).
   */
  stop(): void {
    this.stopped = true;
    for (const pause of this.pauses) {
      pause.timer.cancel();
      pause.wake();
    }
  }

  /** Settles once every operation being driven now has stopped (tests wait on it). */
  async idle(): Promise<void> {
    while (this.driving.size) await Promise.all(this.driving.values());
  }

  private drive(op: MoveOperation): void {
    if (this.driving.has(op.id) || this.stopped) return;
    const driven = this.run(op)
      .catch((err: unknown) => this.deps.logger.error({ err, move: op.id }, 'move: the runner stopped driving it'))
      .finally(() => this.driving.delete(op.id));
    this.driving.set(op.id, driven);
  }

  private async run(first: MoveOperation): Promise<void> {
    let op = first;
    let delay = RETRY_FIRST_MS;
    for (;;) {
      const action = actionOf(op);
      if (action === null || this.stopped) {
        this.packs.delete(op.id);
        return;
      }
      let event: MoveEvent;
      try {
        await this.act(op, action, (e) => {
          if (!this.stopped) op = this.commit(nextMove(op, e, this.now()));
        });
        event = UNDOS.includes(action) ? { type: 'undone', undo: action as MoveUndo } : { type: 'step_done' };
      } catch (err) {
        if (!(err instanceof SideFailure)) throw err;
        event = { type: 'fault', ...faultOf(err) };
        this.deps.logger.warn({ move: op.id, action, err: err.error }, `move: ${action} failed (${event.fault})`);
      }
      if (this.stopped) return;
      const next = nextMove(op, event, this.now());
      // A failed undo leaves the operation as it was: nothing new to tell.
      if (next !== op) this.commit(next);
      op = next;
      if (event.type === 'fault' && actionOf(op) === action) {
        await this.pause(delay);
        delay = Math.min(delay * 2, RETRY_MAX_MS);
      } else delay = RETRY_FIRST_MS;
    }
  }

  /** The work of `action`; a side's failure rejects with SideFailure. */
  private async act(op: MoveOperation, action: MoveAction, report: (e: MoveEvent) => void): Promise<void> {
    const source = () => this.side(op, 'source');
    const target = () => this.side(op, 'target');
    switch (action) {
      case 'park_source':
        return onSide('source', () => source().park(op));
      case 'ship': {
        const pack = await ship({
          op,
          source: await onSide('source', async () => source()),
          target: await onSide('target', async () => target()),
          clock: this.deps.clock,
          shipped: (bytes_done, bytes_total) => report({ type: 'shipped', bytes_done, bytes_total }),
        });
        this.packs.set(op.id, pack);
        return;
      }
      case 'spawn_target': {
        const pack = this.packs.get(op.id) ?? (await onSide('source', () => source().pack(op)));
        this.packs.set(op.id, pack);
        return onSide('target', () => target().spawn(op, pack));
      }
      case 'mark_source':
        // Marked first: the target's agent reads what waited for it only once the source can never run again.
        await onSide('source', () => source().mark(op));
        return onSide('target', () => target().settle(op));
      case 'resume_source':
        return onSide('source', () => source().resume(op));
      case 'discard_target':
        return onSide('target', () => target().discard(op));
    }
  }

  private side(op: MoveOperation, which: MoveSideName): MoveSide {
    const { facts } = this.deps;
    return this.deps.sides(which === 'source' ? facts.machineOf(op.agent) : facts.machineTo(op.to));
  }

  private commit(op: MoveOperation): MoveOperation {
    this.deps.store.save(op);
    this.deps.publish(op);
    return op;
  }

  private pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const pause = {
        timer: this.deps.clock.setTimeout(() => pause.wake(), ms),
        wake: () => {
          this.pauses.delete(pause);
          resolve();
        },
      };
      this.pauses.add(pause);
    });
  }

  private now(): string {
    return rfc3339(this.deps.clock.now());
  }
}
