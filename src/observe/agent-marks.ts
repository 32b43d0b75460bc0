/**
 * One value per agent, in memory, each change handed to `changed` (which publishes it, so the fleet follows without a
 * refetch): what Agent.turn_error and Agent.needs_input share. After a restart every agent starts clear.
 */
export class AgentMarks<T> {
  private readonly marks = new Map<string, T>();

  constructor(private readonly changed: (agent: string, value: T | null) => void) {}

  of(agent: string): T | null {
    return this.marks.get(agent) ?? null;
  }

  set(agent: string, value: T): void {
    this.marks.set(agent, value);
    this.changed(agent, value);
  }

  clear(agent: string): void {
    if (!this.marks.delete(agent)) return;
    this.changed(agent, null);
  }

  renamed(from: string, to: string): void {
    const value = this.marks.get(from);
    if (value === undefined) return;
    this.marks.delete(from);
    this.marks.set(to, value);
  }
}
