import type { Database } from './database.js';

/**
 * Every column outside the agents table that holds an agent's name: the agent's Leo Chat thread (messages,
 * attachments, read marker, reminders, and with them its asks and cards), its chat sessions, its reply capture and its
 * usage. A rename moves them all, so the thread follows the agent; a table added later that keys rows by agent belongs
 * here (test/store/agent-rows.test.ts reads the schema to make sure).
 */
export const AGENT_NAME_COLUMNS: readonly (readonly [table: string, column: string])[] = [
  ['messages', 'agent'],
  ['attachments', 'agent'],
  ['read_markers', 'agent'],
  ['reminders', 'agent'],
  ['chat_sessions', 'agent_name'],
  ['reply_awaiting', 'agent'],
  ['reply_transcripts', 'agent'],
  ['usage_turns', 'agent'],
];

/**
 * Re-keys the rows of `from` to `to`; the caller runs it inside the agents-table rename's transaction. A row keyed
 * uniquely by agent that `to` already has (the leftovers of a removed agent of that name: its read marker) gives way
 * to the renamed agent's, as a spawn under that name would take the thread over too.
 */
export function moveAgentRows(db: Database, from: string, to: string): void {
  for (const [table, column] of AGENT_NAME_COLUMNS)
    db.prepare(`UPDATE OR REPLACE ${table} SET ${column} = ? WHERE ${column} = ?`).run(to, from);
}
