import type { Database } from '../store/database.js';
import { AgentRecord, type AgentState } from './agent-record.js';

interface Row extends Omit<AgentRecord, 'environments' | 'env'> {
  environments: string | null;
  env: string | null;
}

const json = (v: unknown) => (v === null ? null : JSON.stringify(v));
const unjson = (v: string | null) => (v === null ? null : JSON.parse(v));

const fromRow = (r: Row): AgentRecord =>
  AgentRecord.parse({ ...r, environments: unjson(r.environments), env: unjson(r.env) });

const toRow = (a: AgentRecord): Row => ({ ...a, environments: json(a.environments), env: json(a.env) });

export class AgentExistsError extends Error {}

/** The durable agent records in chat.db. Every write is one statement or one transaction, so each is atomic. */
export class AgentStore {
  private readonly renameFollowers: ((from: string, to: string) => void)[] = [];

  constructor(private readonly db: Database) {}

  /**
   * `follow` runs inside every rename's transaction, after the record moved: other domains move what they keep under
   * the agent's name there, so a rename lands whole or not at all. A follower that throws undoes the rename.
   */
  onRename(follow: (from: string, to: string) => void): void {
    this.renameFollowers.push(follow);
  }

  list(): AgentRecord[] {
    return (this.db.prepare('SELECT * FROM agents ORDER BY name').all() as Row[]).map(fromRow);
  }

  get(name: string): AgentRecord | null {
    const row = this.db.prepare('SELECT * FROM agents WHERE name = ?').get(name) as Row | undefined;
    return row ? fromRow(row) : null;
  }

  insert(record: AgentRecord): void {
    const row = toRow(record);
    const cols = Object.keys(row);
    try {
      this.db
        .prepare(`INSERT INTO agents (${cols.join(', ')}) VALUES (${cols.map((c) => `@${c}`).join(', ')})`)
        .run(row);
    } catch (err) {
      if ((err as { code?: string }).code === 'SQLITE_CONSTRAINT_PRIMARYKEY')
        throw new AgentExistsError(`an agent named "${record.name}" already exists`);
      throw err;
    }
  }

  update(name: string, patch: Partial<Omit<AgentRecord, 'name' | 'created_at'>>): AgentRecord | null {
    const current = this.get(name);
    if (!current) return null;
    const next = { ...current, ...patch };
    const row = toRow(next);
    const cols = Object.keys(row).filter((c) => c !== 'name');
    this.db.prepare(`UPDATE agents SET ${cols.map((c) => `${c} = @${c}`).join(', ')} WHERE name = @name`).run(row);
    return next;
  }

  setState(name: string, state: AgentState): void {
    this.db.prepare('UPDATE agents SET state = ? WHERE name = ?').run(state, name);
  }

  rename(from: string, to: string): void {
    try {
      this.db.transaction(() => {
        this.db.prepare('UPDATE agents SET name = ? WHERE name = ?').run(to, from);
        for (const follow of this.renameFollowers) follow(from, to);
      })();
    } catch (err) {
      if ((err as { code?: string }).code === 'SQLITE_CONSTRAINT_PRIMARYKEY')
        throw new AgentExistsError(`an agent named "${to}" already exists`);
      throw err;
    }
  }

  remove(name: string): boolean {
    return this.db.prepare('DELETE FROM agents WHERE name = ?').run(name).changes > 0;
  }
}
