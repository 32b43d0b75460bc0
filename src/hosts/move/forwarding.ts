import { addressOf, type ParsedAddress } from '../../wire/agent-address.js';

/** What a dormant record says of where its agent went: the Agent's (or the agent record's) fields of these names. */
export interface MovedMark {
  moved_to?: string | null;
  moved_as?: string | null;
}

/** Enough for an agent moved on and on; a longer chain, or a loop, stops where it got to. */
const MAX_HOPS = 8;

const key = (a: ParsedAddress) => `${a.name}@${a.host ?? ''}`;

/**
 * A hub's forwarding of sends to moved agents: `local` reads its own agents' records, `remote` a followed host's agent
 * (`name@host`) as the fan-in holds it, `follows` says whether a host is one it follows.
 */
export function forwarder(d: {
  local(name: string): MovedMark | null;
  remote(address: string): MovedMark | null;
  follows(host: string): boolean;
}): (address: ParsedAddress) => ParsedAddress | null {
  const markOf = (at: ParsedAddress) => (at.host === null ? d.local(at.name) : d.remote(addressOf(at.name, at.host)));
  return (address) => forwardedTo(address, markOf, d.follows);
}

/**
 * Where a message or an answer sent to `address` goes (issue 32): the agent's new address when `address` is the
 * dormant record a move left, followed through each record it left on the way, or null when it lives at `address`.
 * A hop to a host this hub does not follow ends the chain there: that host's daemon answers (agent_moved, naming the
 * address), so what is sent is never typed into an old pane and never dropped.
 */
function forwardedTo(
  address: ParsedAddress,
  markOf: (at: ParsedAddress) => MovedMark | null,
  follows: (host: string) => boolean,
): ParsedAddress | null {
  let at = address;
  const seen = new Set([key(at)]);
  for (let hop = 0; hop < MAX_HOPS; hop++) {
    const mark = markOf(at);
    if (!mark?.moved_to || !follows(mark.moved_to)) break;
    const next = { name: mark.moved_as ?? at.name, host: mark.moved_to };
    if (seen.has(key(next))) break;
    seen.add(key(next));
    at = next;
  }
  return at === address ? null : at;
}
