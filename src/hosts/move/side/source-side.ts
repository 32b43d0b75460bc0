import fs from 'node:fs';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { movedAway } from '../../../agents/agent-error.js';
import type { AgentRecord } from '../../../agents/agent-record.js';
import type { ResolvedAgent } from '../../../agents/resolve.js';
import { KeyedQueue } from '../../../core/keyed-queue.js';
import { LeoError, notFound } from '../../../core/leo-error.js';
import { rfc3339 } from '../../../core/time.js';
import { HARNESSES } from '../../../harnesses/index.js';
import { addressOf } from '../../../wire/agent-address.js';
import type { AgentPack, PackedAgent, PackPart } from '../../../wire/agent-pack.js';
import type { ConversationManifest } from '../../../wire/conversation-pack.js';
import { readJson, writeJsonAtomic } from './move-files.js';
import { conversationPlace, moveDir, type MoveSideDeps } from './side-deps.js';
import { portableWorkspace } from './workspace-place.js';

const PACK_FILE = 'pack.json';
/** The packed parts' folder: a part named `workspace/refs.bundle` is the file `pack/workspace/refs.bundle`. */
const PACK_DIR = 'pack';

/**
 * The source's side of a move or copy (issue 32): parks the agent (nothing typed into it, nothing starts it), packs it
 * once per move id, hands out the packed parts, and at the end leaves the dormant record, or resumes it when the move
 * is undone. Each call is keyed by the move's id and idempotent; calls for one id run one at a time.
 */
export class SourceSide {
  private readonly lanes = new KeyedQueue();

  constructor(private readonly deps: MoveSideDeps) {}

  /** Stops the agent and holds what is sent to it until resume or mark; parking again changes nothing. */
  park(id: string, agent: string): Promise<void> {
    return this.lanes.run(id, async () => {
      const { holds, supervisor } = this.deps;
      const held = holds.of(agent);
      if (held && held.id !== id)
        throw new LeoError(409, `${agent} is parked by another move (${held.id})`, 'move_in_progress', {
          id: held.id,
        });
      const record = this.record(agent);
      // Held first, stopped second: a message arriving in between waits instead of starting it again; one already
      // being typed is let finish (stopped mid-typing, it would fail).
      if (!held) holds.hold({ id, agent, was: record.state });
      await this.deps.deliveries.typingDone(agent);
      if (record.state === 'active' || supervisor.isRunning(agent)) await supervisor.park(agent);
    });
  }

  /** Undoes park: the agent runs again (resuming its conversation) if it ran before, and what waited is delivered. */
  resume(id: string, agent: string): Promise<void> {
    return this.lanes.run(id, async () => {
      const { holds, supervisor } = this.deps;
      const held = holds.byId(id);
      if (!held || held.agent !== agent) return;
      // The pack was taken under this park: the agent runs again and changes, so a retry of the move packs anew.
      dropPack(moveDir(this.deps, id));
      holds.release(id);
      if (held.was === 'active' && supervisor.has(agent) && !supervisor.movedError(agent))
        await supervisor.start(agent);
    });
  }

  /**
   * Packs the agent into the move's folder: its record, workspace (refused over hosts.move_max_bytes), conversation
   * and thread. Once per id: asked again, it answers the pack it wrote. A move's pack needs the agent parked by the
   * same id, so nothing the agent does is left out of it; a copy's is taken while it runs.
   */
  pack(id: string, agent: string, kind: 'move' | 'copy'): Promise<AgentPack> {
    return this.lanes.run(id, async () => {
      const dir = moveDir(this.deps, id);
      const packed = readJson<AgentPack>(path.join(dir, PACK_FILE));
      if (packed) return packed;
      const record = this.record(agent);
      if (kind === 'move' && this.deps.holds.byId(id)?.agent !== agent)
        throw new LeoError(409, `${agent} is not parked by move ${id}: park it first`, 'not_parked');
      const out = path.join(dir, PACK_DIR);
      // What an earlier, interrupted try left is packed again from scratch.
      fs.rmSync(out, { recursive: true, force: true });
      // Sealed before the thread is read: a message taken after it would be left behind (MoveHolds.sendError).
      if (kind === 'move') this.deps.holds.seal(id);
      const pack = await this.packInto(id, record, this.deps.supervisor.resolved(agent)!, out);
      writeJsonAtomic(path.join(dir, PACK_FILE), pack);
      return pack;
    });
  }

  /**
   * What the agent's workspace would ship, asked before a move or copy starts so that one over
   * `hosts.move_max_bytes` is refused with nothing changed (409 workspace_too_large, naming both sizes).
   */
  async measure(agent: string): Promise<number> {
    this.record(agent);
    const { workspace } = this.deps.supervisor.resolved(agent)!;
    if (!fs.existsSync(workspace)) return 0;
    return (await this.deps.packer.measure(workspace, this.deps.config().hosts.move_max_bytes)).bytes;
  }

  /** One packed part's bytes; 404 for a part the move's pack does not list. */
  part(id: string, name: string): Readable {
    const pack = readJson<AgentPack>(path.join(moveDir(this.deps, id), PACK_FILE));
    if (!pack) throw notFound(`move ${id} has packed nothing here`);
    if (!pack.parts.some((p) => p.name === name)) throw notFound(`move ${id}'s pack has no part ${name}`);
    const file = path.join(moveDir(this.deps, id), PACK_DIR, name);
    // Deleted at the mark: the target had them all by then.
    if (!fs.existsSync(file)) throw new LeoError(410, `move ${id}'s parts are gone: it was marked`, 'gone');
    return fs.createReadStream(file);
  }

  /**
   * The move's last step: the dormant record says where the agent went (`as` on host `to`, the hub's name for it), the
   * thread's open cards close with a note naming the address, and the messages held since park fail with a note
   * naming it too (chat-service.ts). The packed parts are deleted: the target has them.
   */
  mark(id: string, agent: string, to: string, as: string): Promise<void> {
    return this.lanes.run(id, async () => {
      const { supervisor, threads, holds, clock } = this.deps;
      await supervisor.markMoved(agent, { to, as: as === agent ? null : as, at: rfc3339(clock.now()) });
      await threads.closeForMove(agent, addressOf(as, to));
      holds.release(id);
      fs.rmSync(path.join(moveDir(this.deps, id), PACK_DIR), { recursive: true, force: true });
    });
  }

  private record(agent: string): AgentRecord {
    const record = this.deps.records.get(agent);
    if (!record) throw notFound(`no agent named "${agent}"`);
    if (record.moved_to) throw movedAway(record);
    return record;
  }

  private async packInto(id: string, record: AgentRecord, resolved: ResolvedAgent, out: string): Promise<AgentPack> {
    const { packer, threads, config, userHome } = this.deps;
    let workspace: AgentPack['workspace'] = null;
    if (fs.existsSync(resolved.workspace)) {
      await packer.measure(resolved.workspace, config().hosts.move_max_bytes);
      workspace = await packer.pack(resolved.workspace, path.join(out, 'workspace'));
    }
    const conversation = await this.packConversation(record, resolved, path.join(out, 'conversation'));
    const thread = await threads.pack(record.name, path.join(out, 'thread'));
    const parts: PackPart[] = [
      ...(workspace?.parts ?? []).map((p) => ({ ...p, name: `workspace/${p.name}` })),
      ...(conversation?.files ?? []).map((f) => ({ name: `conversation/${f.path}`, bytes: f.bytes, sha256: f.sha256 })),
      ...thread.files.map((f) => ({ ...f, name: `thread/${f.name}` })),
    ];
    const agent: PackedAgent = {
      name: record.name,
      template: record.template,
      harness: record.harness,
      model: record.model,
      environments: record.environments,
      emoji: record.emoji,
      color: record.color,
      workspace: record.workspace === null ? null : portableWorkspace(record.workspace, userHome),
    };
    return { version: 1, move_id: id, agent, workspace, conversation, thread, parts };
  }

  /** Null for a harness with no carrier, or a session its CLI never wrote (never prompted): it starts anew there. */
  private async packConversation(
    record: AgentRecord,
    resolved: ResolvedAgent,
    dir: string,
  ): Promise<ConversationManifest | null> {
    const adapter = HARNESSES[resolved.harness];
    if (!adapter.conversation || !record.session_id) return null;
    const place = conversationPlace(this.deps, record, resolved, dir);
    if (adapter.canResume && !adapter.canResume(place.home, record.session_id)) return null;
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    return adapter.conversation.pack(place, record.session_id);
  }
}

function dropPack(dir: string): void {
  fs.rmSync(path.join(dir, PACK_FILE), { force: true });
  fs.rmSync(path.join(dir, PACK_DIR), { recursive: true, force: true });
}
