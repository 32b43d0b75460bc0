/**
 * Capabilities advertised in the SSE hello and /api/v1/version. Each domain module adds the names it implements
 * when it is wired in, so the list is always what this daemon actually serves.
 */
export class FeatureSet {
  private readonly names = new Set<string>();

  add(...names: string[]): void {
    for (const n of names) this.names.add(n);
  }

  list(): string[] {
    return [...this.names].sort();
  }
}
