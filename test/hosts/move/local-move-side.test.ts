// The hub's own daemon as a move's side (issue 32): the runner's calls reach its MoveSideService with the agent's bare
// name and the operation's id, and a refusal rejects as a followed host's would, with its status and code.
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { describe, it } from 'node:test';
import { LeoError } from '../../../src/core/leo-error.js';
import { HostRefusedError } from '../../../src/hosts/host-client.js';
import { localMoveSide } from '../../../src/hosts/move/side/local-move-side.js';
import type { MoveSideService } from '../../../src/hosts/move/side/move-side-service.js';
import type { AgentPack } from '../../../src/wire/agent-pack.js';
import type { MoveOperation } from '../../../src/wire/move.js';

const op = { id: '01OP', kind: 'copy', agent: 'den', to: 'cloud', as: 'den2' } as MoveOperation;

describe('localMoveSide', () => {
  it('calls the service with the id, the bare name and the target name', async () => {
    const calls: string[] = [];
    const log = (...args: unknown[]) => void calls.push(args.join(' '));
    const service = {
      source: {
        park: async (id: string, agent: string) => log('park', id, agent),
        resume: async (id: string, agent: string) => log('resume', id, agent),
        pack: async (id: string, agent: string, kind: string) => (log('pack', id, agent, kind), {} as AgentPack),
        part: (id: string, name: string) => (log('part', id, name), Readable.from([])),
        mark: async (id: string, agent: string, to: string, as: string) => log('mark', id, agent, to, as),
      },
      target: {
        held: (id: string) => (log('held', id), ['thread/a']),
        receive: async (id: string, name: string) => log('receive', id, name),
        spawn: async (id: string, as: string, _pack: unknown, kind: string) => log('spawn', id, as, kind),
        settle: async (id: string) => log('settle', id),
        discard: async (id: string) => log('discard', id),
      },
    } as unknown as MoveSideService;
    const side = localMoveSide(service);
    await side.park({ ...op, agent: 'den' });
    await side.pack(op);
    await side.part(op, 'thread/a');
    assert.deepEqual(await side.held(op), ['thread/a']);
    await side.receive(op, 'thread/a', Readable.from([]));
    await side.spawn(op, {} as AgentPack);
    await side.settle(op);
    await side.discard(op);
    await side.resume(op);
    await side.mark(op);
    assert.deepEqual(calls, [
      'park 01OP den',
      'pack 01OP den copy',
      'part 01OP thread/a',
      'held 01OP',
      'receive 01OP thread/a',
      'spawn 01OP den2 copy',
      'settle 01OP',
      'discard 01OP',
      'resume 01OP den',
      'mark 01OP den cloud den2',
    ]);
  });

  it('a refusal rejects as HostRefusedError with its status and code; any other failure as a 500', async () => {
    const service = {
      source: {
        park: async () => {
          throw new LeoError(409, 'den is parked by another move (01X)', 'move_in_progress');
        },
        part: () => {
          throw new Error('EIO');
        },
      },
      target: {},
    } as unknown as MoveSideService;
    const side = localMoveSide(service);
    await assert.rejects(side.park(op), (err: HostRefusedError) => {
      assert.ok(err instanceof HostRefusedError);
      return err.hostStatus === 409 && err.hostCode === 'move_in_progress' && /another move/.test(err.message);
    });
    await assert.rejects(side.part(op, 'x'), (err: HostRefusedError) => err.hostStatus === 500);
  });
});
