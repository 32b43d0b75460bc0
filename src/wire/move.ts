import { z } from 'zod';
import { component } from './components.js';
import { HostName } from './host.js';
import { AgentName } from './names.js';

/**
 * Moving and copying an agent to another machine (issue 32), on a hub: the bodies of `POST /api/v1/agents/:name/move`
 * and `…/copy`, and the operation both start, which its progress event carries whole.
 */

/** `to`: the target's `client.hosts` key; `force`: move even while a turn runs; `as`: its name there. */
export const MoveBody = z.strictObject({ to: HostName, force: z.boolean().optional(), as: AgentName.optional() });
export type MoveBody = z.infer<typeof MoveBody>;

/** A copy leaves its source running, so no turn is in its way: it carries the conversation as it was packed. */
export const CopyBody = z.strictObject({ to: HostName, as: AgentName.optional() });
export type CopyBody = z.infer<typeof CopyBody>;

/**
 * Where an operation is: a move parks the source, ships its conversation, thread and workspace, spawns it resumed on
 * the target and marks the source's record (moved_to); a copy only ships and spawns. `done` and `failed` are its ends.
 */
export const MoveStep = z.enum(['park', 'ship', 'spawn', 'mark', 'done', 'failed']);
export type MoveStep = z.infer<typeof MoveStep>;

/**
 * What broke a step: the link from the hub to a side cut, a side's daemon killed (the hub's own: it resumes the
 * operation from its table when it is back), or a side that answered but refused (a disk full, a harness that would
 * not start).
 */
export const MoveFault = z.enum([
  'link_cut_source',
  'link_cut_target',
  'source_killed',
  'target_killed',
  'hub_killed',
  'refused',
]);
export type MoveFault = z.infer<typeof MoveFault>;

/**
 * What undoes a step that failed before the target's agent was known to run, each idempotent and keyed by the
 * operation's id: start the source again, and take away what the move put on the target (files, and an agent it may
 * have spawned there).
 */
export const MoveUndo = z.enum(['resume_source', 'discard_target']);
export type MoveUndo = z.infer<typeof MoveUndo>;

export const MoveOperation = component(
  'MoveOperation',
  z.object({
    /** A ULID: the handle a retry or a progress reader names it by. */
    id: z.string(),
    kind: z.enum(['move', 'copy']),
    /** The source as the hub names it: `name`, or `name@host`. */
    agent: z.string(),
    /** The target's `client.hosts` key. */
    to: z.string(),
    /** The agent's name on the target: its own, or the `as` it was given. */
    as: z.string(),
    force: z.boolean(),
    step: MoveStep,
    /** The bytes shipped so far and the total (null until the parts are packed); zero before `ship`. */
    progress: z.object({ bytes_done: z.number().int().nonnegative(), bytes_total: z.number().int().nullable() }),
    /** Which side the operation leaves running: the source until the target's spawn answered, the target after. */
    runs: z.enum(['source', 'target']),
    /** A failed operation's undoing still to do, in order; an operation is settled once this is empty. */
    undo: z.array(MoveUndo),
    /** The step that failed and why; null unless it failed. */
    failure: z.object({ step: MoveStep, fault: MoveFault, message: z.string() }).nullable(),
    /** 1 for the first try; each retry counts one more. */
    attempt: z.number().int().positive(),
    created_at: z.string(),
    updated_at: z.string(),
  }),
);
export type MoveOperation = z.infer<typeof MoveOperation>;

/** The move_progress event's payload: the operation as it now is, after each step, fault, undo and shipped chunk. */
export const MoveProgressEvent = z.object({ move: MoveOperation });
export type MoveProgressEvent = z.infer<typeof MoveProgressEvent>;
