/**
 * The names agents' running processes still go by. A live rename keeps the process (tmux renames its session), and
 * the harness keeps the old name in LEO_AGENT and in its MCP URL until it is launched again: its hooks and tool calls
 * under that name are the renamed agent's, not an unknown agent's. Pure bookkeeping; the supervisor tells it what
 * happened.
 */
export class FormerNames {
  /** former name → the agent's name now */
  private readonly now = new Map<string, string>();

  /** A running agent was renamed; a name it went by before that follows it too. */
  renamedLive(from: string, to: string): void {
    for (const [former, current] of this.now) if (current === from) this.now.set(former, to);
    this.now.set(from, to);
    this.taken(to);
  }

  /** The agent's process ended or was launched anew (with its own name): nothing runs under its former names. */
  ended(name: string): void {
    for (const [former, current] of this.now) if (current === name) this.now.delete(former);
  }

  /** An agent now has this name (spawned, or renamed to it): calls under it are that agent's own. */
  taken(name: string): void {
    this.now.delete(name);
  }

  /** The agent a process calling itself `name` is now; `name` itself when it is no former name. */
  resolve(name: string): string {
    return this.now.get(name) ?? name;
  }
}
