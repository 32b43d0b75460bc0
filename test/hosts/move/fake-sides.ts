// Two machines as a move's runner sees them, faked (issue 32): each MoveSide call does what the real one would to a
// model of both hosts (which agent runs where, which parts the target holds), and any call can be made to fail before
// its work (nothing happened) or after it (it happened, the answer was lost), as unreachable, killed or refused.
import { Readable } from 'node:stream';
import { HostRefusedError, HostUnreachableError } from '../../../src/hosts/host-client.js';
import type { MoveSide } from '../../../src/hosts/move/operation/move-sides.js';
import type { AgentPack } from '../../../src/wire/agent-pack.js';
import type { MoveOperation } from '../../../src/wire/move.js';

export type SideCall = keyof MoveSide;
export type FaultKind = 'unreachable' | 'killed' | 'refused';

export interface InjectedFault {
  call: SideCall;
  kind: FaultKind;
  /** before: the call fails with nothing done; after: its work is done and the answer lost (a part: it breaks). */
  when: 'before' | 'after';
  /** How many calls of it fail, the first ones. */
  times: number;
}

const CHUNK = 1_000;
export const PARTS = [
  { name: 'workspace/refs.bundle', bytes: 3_000, sha256: 'a'.repeat(64) },
  { name: 'thread/messages.jsonl', bytes: 5_000, sha256: 'b'.repeat(64) },
];

export function packOf(op: MoveOperation): AgentPack {
  const name = op.agent.split('@')[0]!;
  const agent = {
    name,
    template: 'coder',
    harness: 'shell',
    model: null,
    environments: null,
    emoji: null,
    color: null,
  };
  return {
    version: 1,
    move_id: op.id,
    agent: { ...agent, workspace: null },
    workspace: null,
    conversation: null,
    thread: {},
    parts: PARTS,
  };
}

export class FakeMachines {
  /** Whether the agent runs on each side; marked: the source's dormant record. */
  source = { running: true, marked: false };
  /** settled: told the move is marked, so its agent reads what the move carried (a move only). */
  target = { running: false, held: new Set<string>(), settled: false };
  /** Set when both ever ran at once during a move, or when it was started twice. */
  violations: string[] = [];
  calls: string[] = [];
  private faults: InjectedFault[] = [];
  /** A call that never answers (the hub is killed while it is out). */
  hang: SideCall | null = null;
  /** Called between the chunks of a part: the test moves its clock there. */
  onChunk: () => void = () => {};
  /** What the source's measure refuses with, as a daemon over the size limit does (null: it fits). */
  tooLarge: string | null = null;
  private readonly count = new Map<SideCall, number>();

  constructor(readonly kind: 'move' | 'copy' = 'move') {}

  /** From now on these fail (each counting its calls from here). */
  inject(...faults: InjectedFault[]): void {
    this.faults = faults;
    this.count.clear();
  }

  running(): number {
    return Number(this.source.running) + Number(this.target.running);
  }

  side(which: 'source' | 'target'): MoveSide {
    const call = <T>(name: SideCall, work: () => T | Promise<T>): Promise<T> => this.call(which, name, work);
    return {
      park: () => call('park', () => void (this.source.running = false)),
      resume: () =>
        call('resume', () => {
          this.source.running = true;
          this.check('resume');
        }),
      measure: async () => {
        if (this.tooLarge) throw new HostRefusedError(409, 'workspace_too_large', this.tooLarge);
        return PARTS.reduce((sum, p) => sum + p.bytes, 0);
      },
      pack: (op) => call('pack', () => packOf(op)),
      part: (_op, name) => call('part', () => this.partStream(name)),
      held: () => call('held', () => [...this.target.held]),
      receive: (_op, name, body) =>
        call('receive', async () => {
          let bytes = 0;
          for await (const chunk of body) bytes += (chunk as Buffer).length;
          if (bytes === PARTS.find((p) => p.name === name)?.bytes) this.target.held.add(name);
        }),
      spawn: () =>
        call('spawn', () => {
          this.target.running = true;
          this.check('spawn');
        }),
      settle: () =>
        call('settle', () => {
          if (!this.source.marked) this.violations.push('settled before the mark');
          this.target.settled = true;
        }),
      discard: () =>
        call('discard', () => {
          // The agent taken away had read what the move carried: the source is typed it again.
          if (this.target.settled) this.violations.push('discarded a target that read the carried messages');
          this.target.running = false;
          this.target.held.clear();
        }),
      mark: () => call('mark', () => void (this.source.marked = true)),
    };
  }

  private async call<T>(side: string, name: SideCall, work: () => T | Promise<T>): Promise<T> {
    const n = (this.count.get(name) ?? 0) + 1;
    this.count.set(name, n);
    this.calls.push(`${side}.${name}`);
    if (this.hang === name) return new Promise<T>(() => {});
    const fault = this.faults.find((f) => f.call === name && n <= f.times);
    if (fault?.when === 'before') throw errorOf(fault.kind);
    const done = await work();
    if (fault?.when === 'after' && name === 'part') return breaking(done as Readable, errorOf(fault.kind)) as T;
    if (fault?.when === 'after') throw errorOf(fault.kind);
    return done;
  }

  private partStream(name: string): Readable {
    const bytes = PARTS.find((p) => p.name === name)!.bytes;
    const onChunk = () => this.onChunk();
    return Readable.from(
      (function* () {
        for (let at = 0; at < bytes; at += CHUNK) {
          onChunk();
          yield Buffer.alloc(Math.min(CHUNK, bytes - at), 1);
        }
      })(),
    );
  }

  private check(what: string): void {
    if (this.kind === 'move' && this.running() > 1) this.violations.push(`two running after ${what}`);
  }
}

function errorOf(kind: FaultKind): Error {
  if (kind === 'refused') return new HostRefusedError(507, 'disk_full', 'the host answered HTTP 507: disk full');
  return new HostUnreachableError(
    'http://10.0.0.2:8370',
    kind === 'killed' ? 'ECONNREFUSED' : 'no answer within 5000 ms',
  );
}

/** The part's first chunk, then the link breaks. */
function breaking(body: Readable, error: Error): Readable {
  return Readable.from(
    (async function* () {
      for await (const chunk of body) {
        yield chunk as Buffer;
        throw error;
      }
    })(),
  );
}
