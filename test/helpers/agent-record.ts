import type { AgentRecord } from '../../src/agents/agent-record.js';

/** An agent's stored record with nothing chosen beyond its template: `over` sets what a test needs. */
export const agentRecord = (over: Partial<AgentRecord> = {}): AgentRecord => ({
  name: 'den',
  template: 'fable',
  repo: null,
  branch: null,
  workspace: null,
  model: null,
  harness: null,
  environments: null,
  env: null,
  session_id: null,
  stop_reason: null,
  emoji: null,
  color: null,
  moved_to: null,
  moved_at: null,
  moved_as: null,
  state: 'active',
  created_at: '2026-01-01T00:00:00Z',
  ...over,
});
