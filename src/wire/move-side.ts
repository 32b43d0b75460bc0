import { z } from 'zod';
import { AgentPack, PackPart } from './agent-pack.js';
import { HostName } from './host.js';
import { AgentName } from './names.js';

/**
 * The routes every daemon serves for a hub moving or copying one of its agents (issue 32): as the source (park, resume,
 * pack, a part's bytes, mark) or as the target (the parts it holds, a part's upload, spawn, settle, discard). Each is
 * keyed by the operation's id and idempotent, so the hub's runner simply calls again after a cut link or a restart.
 */

/** The operation's id (a ULID on the hub), which also names its folder on each side. */
export const MoveId = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'a move id: letters, digits, _ or - (max 64)');
export const MoveIdParams = z.object({ id: MoveId });

/** A part's name as it appears after `/parts/` in the path: checked with the pack's own rule. */
export const PartName = PackPart.shape.name;

/** `POST …/park`, `…/resume`: the source's agent, by its name there. */
export const MoveAgentBody = z.strictObject({ agent: AgentName });
export type MoveAgentBody = z.infer<typeof MoveAgentBody>;

/** Whether the operation leaves its source dormant (a move) or running beside the new agent (a copy). */
const MoveKind = z.enum(['move', 'copy']);

/** `POST …/pack`: a move's pack needs the agent parked by the same id; a copy's is taken while it runs. */
export const PackBody = z.strictObject({ agent: AgentName, kind: MoveKind });
export type PackBody = z.infer<typeof PackBody>;

/**
 * `POST …/spawn`: the agent's name on the target and the pack its parts were checked against. A move's carried
 * messages wait on the target until `…/settle` (the source marked): typed sooner, an undo would leave them read by an
 * agent it takes away. A copy's (or an older hub's, which names no kind) go on once the agent runs.
 */
export const SpawnBody = z.strictObject({ as: AgentName, pack: AgentPack, kind: MoveKind.optional() });
export type SpawnBody = z.infer<typeof SpawnBody>;

/** `POST …/mark`: where the source's agent went: the hub's `client.hosts` key of the target, and its name there. */
export const MarkBody = z.strictObject({ agent: AgentName, to: HostName, as: AgentName });
export type MarkBody = z.infer<typeof MarkBody>;

/** `POST /api/v1/moves/:id/measure`: what the agent's workspace would ship. */
export const Measured = z.object({ bytes: z.number().int().nonnegative() });
export type Measured = z.infer<typeof Measured>;

/** `GET …/held`: the parts the target holds whole, so a retried ship sends only the rest. */
export const HeldParts = z.object({ parts: z.array(z.string()) });
export type HeldParts = z.infer<typeof HeldParts>;

/** The answer of the side routes that do something and say nothing more. */
export const SideDone = z.object({ id: z.string() });
export type SideDone = z.infer<typeof SideDone>;
