import { movedAway } from '../../agents/agent-error.js';
import { LeoError } from '../../core/leo-error.js';
import { parseAddress } from '../../wire/agent-address.js';
import type { CopyBody, MoveBody, MoveOperation } from '../../wire/move.js';
import { hostUnreachable } from '../proxy/proxy-rules.js';

/**
 * Why a move or copy is refused before anything changes (issue 32), pure: each check takes the facts the hub
 * gathered and answers the error its route throws, or null. The source's are asked first (they cost nothing), then
 * the target's (one request to it); the workspace's size last, since measuring reads the disk: that refusal is
 * WorkspaceTooLargeError, thrown by the packer's measure() (src/hosts/move/workspace/measure.ts), naming the size.
 */

export interface MoveRequest {
  kind: MoveOperation['kind'];
  /** The source as the hub names it: `name`, or `name@host`. */
  agent: string;
  /** The target's `client.hosts` key. */
  to: string;
  force: boolean;
  as?: string;
}

export interface SourceFacts {
  /** Its record, or null for no such agent. */
  record: {
    name: string;
    template: string | null;
    /** Its own environment list (null: its template's or the defaults, which the target resolves for itself). */
    environments: string[] | null;
    moved_to: string | null;
    moved_at: string | null;
    moved_as: string | null;
  } | null;
  /** A turn is running (its activity is `working`). */
  busy: boolean;
  /** The move or copy of it already under way, if any. */
  underWay: MoveOperation | null;
}

export type TargetFacts =
  | { reachable: false; why: string }
  | {
      reachable: true;
      /** Its agents' names, each with moved_to when it is a dormant record (which an arriving agent replaces). */
      agents: { name: string; moved_to?: string }[];
      templates: string[];
      environments: string[];
    };

/** A move's or a copy's route body, for the agent the route's path names. */
export function moveRequest(kind: MoveOperation['kind'], agent: string, body: MoveBody | CopyBody): MoveRequest {
  const force = kind === 'move' && 'force' in body && body.force === true;
  return { kind, agent, to: body.to, force, ...(body.as === undefined ? {} : { as: body.as }) };
}

/** The name the agent takes on the target. */
export const targetName = (req: MoveRequest): string => req.as ?? parseAddress(req.agent)?.name ?? req.agent;

/** A move to the machine the agent already runs on (a copy there is a second agent beside it, named `as`). */
export const sameHost = (req: MoveRequest): LeoError =>
  new LeoError(409, `${req.agent} already runs on ${req.to}`, 'same_host', { host: req.to });

export function refusalAtSource(req: MoveRequest, source: SourceFacts): LeoError | null {
  const { record } = source;
  if (!record) return new LeoError(404, `no agent named "${req.agent}"`);
  if (record.moved_to) return movedAway(record);
  if (req.kind === 'move' && parseAddress(req.agent)?.host === req.to) return sameHost(req);
  if (source.underWay)
    return new LeoError(
      409,
      `${req.agent} is already being ${source.underWay.kind === 'move' ? 'moved' : 'copied'} (${source.underWay.id})`,
      'move_in_progress',
      { id: source.underWay.id },
    );
  // A copy leaves its source running: it takes the conversation as it stands when packed.
  if (req.kind === 'move' && source.busy && !req.force)
    return new LeoError(
      409,
      `${req.agent} is in the middle of a turn: move it once the turn ends, or with force`,
      'agent_busy',
    );
  return null;
}

export function refusalAtTarget(req: MoveRequest, source: SourceFacts, target: TargetFacts): LeoError | null {
  if (!target.reachable) return hostUnreachable(req.to, target.why);
  const name = targetName(req);
  // A dormant record (an agent that moved away from there) keeps no name: the arriving agent takes its place.
  if (target.agents.some((a) => a.name === name && !a.moved_to))
    return new LeoError(
      409,
      `${req.to} already has an agent named "${name}"${req.as ? '' : ': give the agent another name there (as)'}`,
      'name_taken',
      { host: req.to, name },
    );
  const template = source.record?.template;
  if (template && !target.templates.includes(template))
    return new LeoError(409, `${req.to} has no template "${template}"`, 'template_missing', {
      host: req.to,
      template,
    });
  const missing = (source.record?.environments ?? []).filter((e) => !target.environments.includes(e));
  if (missing.length)
    return new LeoError(
      409,
      `${req.to} has no environment${missing.length > 1 ? 's' : ''} ${missing.map((e) => `"${e}"`).join(', ')}`,
      'environment_missing',
      { host: req.to, environments: missing },
    );
  return null;
}
