/** Leo's tmux session for an agent. Agent names exclude `.` and `:`, which tmux would rewrite, so this is 1:1. */
export function sessionName(agent: string): string {
  return `leo-${agent}`;
}

export function agentOfSession(session: string): string | null {
  return session.startsWith('leo-') ? session.slice(4) : null;
}
