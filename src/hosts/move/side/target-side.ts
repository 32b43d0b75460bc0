import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { AgentRecord } from '../../../agents/agent-record.js';
import { assertEnvironments, assertTemplate, spawnedRecord } from '../../../agents/lifecycle/spawn-request.js';
import type { SpawnRequest } from '../../../agents/lifecycle/spawn-request.js';
import { resolveAgent } from '../../../agents/resolve.js';
import { HarnessSchema } from '../../../config/schema.js';
import { fileDigest } from '../../../core/file-digest.js';
import { filesUnder } from '../../../core/files-under.js';
import { KeyedQueue } from '../../../core/keyed-queue.js';
import { LeoError } from '../../../core/leo-error.js';
import { HARNESSES } from '../../../harnesses/index.js';
import type { AgentPack } from '../../../wire/agent-pack.js';
import { ThreadManifest } from '../../../wire/thread-pack.js';
import type { WorkspaceManifest } from '../../../wire/workspace-pack.js';
import { TargetNotEmptyError } from '../workspace/index.js';
import { readJson, writeJsonAtomic } from './move-files.js';
import { conversationPlace, moveDir, type MoveSideDeps } from './side-deps.js';
import { freePlace, localWorkspace } from './workspace-place.js';

/** The parts received whole; `incoming/` holds each while it arrives, under a name of its own. */
const PARTS_DIR = 'parts';
const INCOMING_DIR = 'incoming';

/**
 * What a move put on this target, written before each thing is made (so a daemon killed part-way knows what is its
 * own), which discard takes away and nothing else.
 */
interface TargetRecord {
  as: string;
  /** The workspace it unpacked: into a place that was missing or empty; `unpacked` once it is whole. */
  workspace?: { path: string; existed: boolean; unpacked: boolean };
  /** It took in the thread as `as`'s. */
  thread?: true;
  /** It asked for the agent `as` to be spawned. */
  agent?: true;
  /** The agent runs: spawning again answers at once. */
  spawned?: true;
  /** The dormant record of that name it took the place of: put back if the move is undone, so its address forwards. */
  replaced?: AgentRecord;
}
const TARGET_FILE = 'target.json';

/**
 * The target's side of a move or copy (issue 32): takes in the packed parts one by one, then unpacks them and spawns
 * the agent resumed as `as`; or, when the move is undone, takes away exactly what it put here. Each call is keyed by
 * the move's id and idempotent; calls for one id run one at a time.
 */
export class TargetSide {
  private readonly lanes = new KeyedQueue();

  constructor(private readonly deps: MoveSideDeps) {}

  /** The parts already here whole, so a retried ship sends only the rest. */
  held(id: string): string[] {
    return filesUnder(this.dir(id, PARTS_DIR));
  }

  /** Writes one part as it arrives; it counts as held once it has arrived whole (spawn checks its sha256). */
  async receive(id: string, name: string, body: Readable): Promise<void> {
    const incoming = this.dir(id, INCOMING_DIR);
    fs.mkdirSync(incoming, { recursive: true, mode: 0o700 });
    const tmp = path.join(incoming, randomUUID());
    try {
      await pipeline(body, fs.createWriteStream(tmp, { mode: 0o600 }));
      const file = path.join(this.dir(id, PARTS_DIR), name);
      fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
      fs.renameSync(tmp, file);
    } finally {
      fs.rmSync(tmp, { force: true });
    }
  }

  /**
   * Checks every part against the pack, unpacks the workspace, the conversation and the thread, and spawns the agent
   * as `as`, resuming its conversation. A dormant record of that name (an agent that moved away from here) gives way
   * to it. Spawning again for the same id, once it runs, changes nothing. A move's thread stays held until settle.
   */
  spawn(id: string, as: string, pack: AgentPack, kind: 'move' | 'copy' = 'copy'): Promise<void> {
    // A move's messages wait for settle (wire/move-side.ts SpawnBody); a copy's go on once the agent runs.
    const letGo = () => {
      if (kind === 'copy') this.deps.holds.release(id);
    };
    return this.lanes.run(id, async () => {
      const { supervisor, records, threads, config } = this.deps;
      if (pack.move_id !== id) throw new LeoError(400, `the pack is move ${pack.move_id}'s, not ${id}'s`, 'invalid');
      const done = this.record(id);
      if (done && done.as !== as)
        throw new LeoError(409, `move ${id} spawned ${done.as} here, not ${as}`, 'move_in_progress');
      const existing = records.get(as);
      if (existing && !existing.moved_to) {
        // Its own agent, spawned by an earlier try whose answer (or record of it) was lost: nothing more to do.
        if (done?.agent) {
          this.write(id, { ...done, spawned: true });
          return letGo();
        }
        throw new LeoError(409, `an agent named "${as}" already exists here`, 'name_taken', { name: as });
      }
      let req = this.spawnRequest(as, pack);
      assertTemplate(req.template, config());
      assertEnvironments(req.environments, config());
      await this.checkParts(id, pack);
      const record: TargetRecord = done ?? { as };
      let resolved = resolveAgent(spawnedRecord(req, ''), config(), this.deps.paths.home);
      if (pack.workspace) {
        // A try cut off part-way keeps the place it chose.
        const place = record.workspace?.path ?? freePlace(resolved.workspace, as, emptyOrMissing);
        if (place !== resolved.workspace) {
          req = { ...req, workspace: place };
          resolved = resolveAgent(spawnedRecord(req, ''), config(), this.deps.paths.home);
        }
        await this.unpackWorkspace(id, record, pack.workspace, place);
      }
      let sessionId: string | undefined;
      if (pack.conversation) {
        const carrier = HARNESSES[resolved.harness].conversation;
        if (!carrier || pack.conversation.harness !== resolved.harness)
          throw new LeoError(
            409,
            `the conversation is ${pack.conversation.harness}'s; ${as} would run ${resolved.harness} here`,
            'harness_mismatch',
          );
        const place = conversationPlace(this.deps, spawnedRecord(req, ''), resolved, this.dir(id, PARTS_DIR));
        ({ sessionId } = await carrier.unpack(
          { ...place, dir: path.join(place.dir, 'conversation') },
          pack.conversation,
        ));
      }
      if (existing?.moved_to) {
        record.replaced = existing;
        this.write(id, record);
        await supervisor.remove(as);
        // The thread it left here is the one it took along, as it was then: the pack's rows, newer, take its place
        // (kept beside them, a message settled here as carried would hide what became of it there).
        await threads.discard(as);
      }
      // What arrives in the thread waiting to be typed waits for the agent (a hold, kept across a restart): typed
      // before the spawn, it would fail for want of an agent. Taken after the dormant record went, whose removal
      // lets go of any hold on its name.
      if (!this.deps.holds.byId(id)) this.deps.holds.hold({ id, agent: as, was: 'active' });
      this.write(id, { ...record, thread: true });
      await threads.unpack(this.dir(id, PARTS_DIR, 'thread'), threadManifest(pack), as);
      this.write(id, { ...record, thread: true, agent: true });
      await supervisor.spawn({ ...req, ...(sessionId ? { sessionId } : {}) });
      this.write(id, { ...record, thread: true, agent: true, spawned: true });
      letGo();
      // The agent runs from its own files now: the shipped copies go.
      fs.rmSync(this.dir(id, PARTS_DIR), { recursive: true, force: true });
    });
  }

  /**
   * The move is marked on its source: the agent here is the one that runs, so what waited in its thread (carried, or
   * sent to it since) is typed now. Again, nothing.
   */
  settle(id: string): Promise<void> {
    return this.lanes.run(id, async () => this.deps.holds.release(id));
  }

  /** Takes away what move `id` put here (its agent, thread, workspace and parts), and nothing else; again, nothing. */
  discard(id: string): Promise<void> {
    return this.lanes.run(id, async () => {
      const { supervisor, threads } = this.deps;
      const record = this.record(id);
      const as = record?.replaced?.name ?? '';
      if (record?.agent && supervisor.has(record.as)) await supervisor.remove(record.as);
      if (record?.thread) await threads.discard(record.as);
      if (record?.workspace) clearWorkspace(record.workspace);
      if (record?.replaced && !this.deps.records.get(as)) await supervisor.restoreDormant(record.replaced);
      // The thread is gone: what waited in it finds nothing left to type.
      this.deps.holds.release(id);
      for (const sub of [PARTS_DIR, INCOMING_DIR]) fs.rmSync(this.dir(id, sub), { recursive: true, force: true });
      fs.rmSync(this.dir(id, TARGET_FILE), { force: true });
    });
  }

  private spawnRequest(as: string, pack: AgentPack): SpawnRequest & { template: string } {
    const { agent } = pack;
    if (!agent.template) throw new LeoError(400, `the pack's agent ${agent.name} names no template`, 'invalid');
    const harness = agent.harness === null ? undefined : HarnessSchema.parse(agent.harness);
    return {
      name: as,
      template: agent.template,
      ...(agent.model !== null ? { model: agent.model } : {}),
      ...(harness ? { harness } : {}),
      ...(agent.environments ? { environments: agent.environments } : {}),
      ...(agent.workspace !== null ? { workspace: localWorkspace(agent.workspace, this.deps.userHome) } : {}),
      // A worktree agent's tree arrives as a plain repository, which it works in as is: no worktree of it is made.
      worktree: false,
      emoji: agent.emoji,
      color: agent.color,
    };
  }

  /** Every part the pack lists is here, whole and unchanged; a changed one is deleted, so a retried ship sends it. */
  private async checkParts(id: string, pack: AgentPack): Promise<void> {
    const missing: string[] = [];
    for (const part of pack.parts) {
      const file = this.dir(id, PARTS_DIR, part.name);
      if (!fs.existsSync(file)) {
        missing.push(part.name);
        continue;
      }
      const got = await fileDigest(file);
      if (got.bytes === part.bytes && got.sha256 === part.sha256) continue;
      fs.rmSync(file);
      missing.push(part.name);
    }
    if (missing.length)
      throw new LeoError(409, `move ${id} is missing parts here: ${missing.join(', ')}`, 'parts_missing', {
        parts: missing,
      });
  }

  /**
   * Into a place that is missing or empty (freePlace chose it), or that this move began to fill before (a try cut off
   * part-way, whose files are its own and go first); one filled meanwhile is refused (409 workspace_exists).
   */
  private async unpackWorkspace(
    id: string,
    record: TargetRecord,
    manifest: WorkspaceManifest,
    target: string,
  ): Promise<void> {
    const ours = record.workspace?.path === target ? record.workspace : undefined;
    if (ours?.unpacked) return;
    if (ours) clearWorkspace(ours);
    else if (!emptyOrMissing(target)) throw new TargetNotEmptyError(target);
    record.workspace = { path: target, existed: ours?.existed ?? fs.existsSync(target), unpacked: false };
    this.write(id, record);
    await this.deps.packer.unpack(manifest, this.dir(id, PARTS_DIR, 'workspace'), target);
    record.workspace.unpacked = true;
    this.write(id, record);
  }

  private record(id: string): TargetRecord | null {
    return readJson<TargetRecord>(this.dir(id, TARGET_FILE));
  }

  private write(id: string, record: TargetRecord): void {
    writeJsonAtomic(this.dir(id, TARGET_FILE), record);
  }

  private dir(id: string, ...sub: string[]): string {
    return path.join(moveDir(this.deps, id), ...sub);
  }
}

const emptyOrMissing = (p: string) =>
  !fs.existsSync(p) || (fs.statSync(p).isDirectory() && fs.readdirSync(p).length === 0);

/** Empties a workspace the move unpacked: the folder goes too unless it was there (empty) before. */
function clearWorkspace(w: { path: string; existed: boolean }): void {
  if (!w.existed) return fs.rmSync(w.path, { recursive: true, force: true });
  for (const entry of fs.existsSync(w.path) ? fs.readdirSync(w.path) : [])
    fs.rmSync(path.join(w.path, entry), { recursive: true, force: true });
}

function threadManifest(pack: AgentPack): ThreadManifest {
  const parsed = ThreadManifest.safeParse(pack.thread);
  if (!parsed.success) throw new LeoError(400, "the pack's thread manifest is not one this daemon reads", 'invalid');
  return parsed.data;
}
