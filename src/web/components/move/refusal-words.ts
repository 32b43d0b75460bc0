/**
 * Why the hub refused a move or copy (src/hosts/move/refusals.ts's codes), in words a person acts on: what happened
 * and what to do. `detail` keeps the hub's own message where it names what matters (a template, a size); a code this
 * table does not know shows the hub's message as it is.
 */
export interface RefusalWords {
  words: string;
  detail?: string;
}

export function refusalWords(
  refusal: { code?: string | undefined; message: string },
  ctx: { agent: string; machine: string },
): RefusalWords {
  const { agent, machine } = ctx;
  const detail = refusal.message;
  switch (refusal.code) {
    case 'agent_busy':
      return { words: `${agent} is in the middle of a turn. Wait for it to finish, or move it anyway.` };
    case 'name_taken':
      return { words: `${machine} already has an agent with that name. Choose the name it will have there.` };
    case 'template_missing':
      return { words: `${machine} does not have the template ${agent} was made from.`, detail };
    case 'environment_missing':
      return { words: `${machine} lacks an environment ${agent} uses.`, detail };
    case 'move_in_progress':
      return { words: `${agent} is already being moved or copied. Wait until that finishes.` };
    case 'same_host':
      return { words: `${agent} already runs on ${machine}.` };
    case 'workspace_too_large':
      return { words: `${agent}'s workspace is too large to send.`, detail };
    case 'host_unreachable':
      return { words: `${machine} cannot be reached right now. Try again once it is online.`, detail };
    case 'agent_moved':
      return { words: `${agent} has already moved to another machine.`, detail };
    default:
      return { words: refusal.message };
  }
}
