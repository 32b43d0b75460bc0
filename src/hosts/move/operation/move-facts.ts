import { z } from 'zod';
import { parseAddress } from '../../../wire/agent-address.js';
import { Agent } from '../../../wire/fleet.js';
import type { HostStatus } from '../../../wire/host.js';
import type { HostAddress, HostClient } from '../../host-client.js';
import { hostUnreachable, unknownHost } from '../../proxy/proxy-rules.js';
import type { SourceFacts, TargetFacts } from '../refusals.js';

/** A machine as a move names it: a followed host's `client.hosts` key, or null for the hub itself. */
export type Machine = string | null;

/** An agent as a target lists it: a dormant record (moved_to) keeps no name there. */
type Listed = { name: string; moved_to?: string | null };

export interface MoveFactsDeps {
  /** The hub's own agents, templates and environments. */
  own: {
    record(name: string): SourceFacts['record'];
    /** A turn is running (its activity is `working`); asked only of an agent that has a record. */
    busy(name: string): boolean;
    agents(): Listed[];
    templates(): string[];
    environments(): string[];
  };
  /** client.hosts as leo.yaml says now. */
  hosts(): Record<string, HostAddress>;
  token(host: string): string | null;
  connect(url: string, pin: string | undefined): HostClient;
  /** A followed host's agent (`name@host`) as the hub's fan-in holds it, and the host's status there. */
  followedAgent(address: string): Agent | null;
  status(host: string): HostStatus | null;
  /** The name the hub's machine gives itself: a move `to` it, from a followed host, lands on the hub. */
  selfName(): string;
  /** How long a target may take to list its agents, templates and environments. */
  deadlineMs?: number;
}

const ASK_DEADLINE_MS = 10_000;
const Named = z.array(z.object({ name: z.string() }));

/**
 * What the hub knows of a move's two machines before it starts one (issue 32): the source's record as the hub holds
 * it (its own supervisor's, or a followed host's view), and the target's agents, templates and environments, asked of
 * the target itself (the hub's own config when the hub is the target).
 */
export class MoveFacts {
  constructor(private readonly deps: MoveFactsDeps) {}

  /** The machine `address` names its agent on; 404 for a host the hub does not follow. */
  machineOf(address: string): Machine {
    const host = parseAddress(address)?.host ?? null;
    if (host !== null && !Object.hasOwn(this.deps.hosts(), host)) throw unknownHost(host);
    return host;
  }

  /** The machine `to` names: a followed host, or (by its own name) the hub; 404 otherwise. */
  machineTo(to: string): Machine {
    if (Object.hasOwn(this.deps.hosts(), to)) return to;
    if (to === this.deps.selfName().toLowerCase()) return null;
    throw unknownHost(to);
  }

  /** The source's facts but the move already under way, which the runner's own table knows. */
  source(address: string): Omit<SourceFacts, 'underWay'> {
    const host = this.machineOf(address);
    if (host === null) {
      const record = this.deps.own.record(address);
      return { record, busy: record !== null && this.deps.own.busy(address) };
    }
    // A move starts by parking the source: a host the hub cannot reach now is refused before anything changes.
    if (this.deps.status(host) === 'offline') throw hostUnreachable(host, 'the hub has lost its connection to it');
    const agent = this.deps.followedAgent(address);
    if (!agent) return { record: null, busy: false };
    return {
      record: {
        name: parseAddress(agent.name)?.name ?? agent.name,
        template: agent.template || null,
        environments: agent.environments_source === 'override' ? agent.environments : null,
        moved_to: agent.moved_to ?? null,
        moved_at: agent.moved_at ?? null,
        moved_as: agent.moved_as ?? null,
      },
      busy: agent.activity === 'working',
    };
  }

  async target(machine: Machine): Promise<TargetFacts> {
    const { own } = this.deps;
    if (machine === null)
      return {
        reachable: true,
        agents: own.agents().map(listed),
        templates: own.templates(),
        environments: own.environments(),
      };
    const address = this.deps.hosts()[machine];
    const token = this.deps.token(machine);
    if (!address || !token) return { reachable: false, why: 'this hub holds no peer token for it' };
    const client = this.deps.connect(address.url, address.pin);
    const signal = AbortSignal.timeout(this.deps.deadlineMs ?? ASK_DEADLINE_MS);
    try {
      const [agents, templates, environments] = await Promise.all([
        client.read(token, '/api/v1/agents', z.array(Agent), signal),
        client.read(token, '/api/v1/templates', Named, signal),
        client.read(token, '/api/v1/environments', Named, signal),
      ]);
      return {
        reachable: true,
        agents: agents.map(listed),
        templates: templates.map((t) => t.name),
        environments: environments.map((e) => e.name),
      };
    } catch (err) {
      const e = err as { why?: string; message?: string };
      return { reachable: false, why: e.why ?? e.message ?? String(err) };
    }
  }
}

const listed = (a: Listed): { name: string; moved_to?: string } =>
  a.moved_to ? { name: a.name, moved_to: a.moved_to } : { name: a.name };
