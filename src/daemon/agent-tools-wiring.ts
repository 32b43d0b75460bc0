import type { FastifyInstance } from 'fastify';
import type { Supervisor } from '../agents/lifecycle/supervisor.js';
import type { AskService } from '../chat/asks/asks.js';
import type { ReminderService } from '../chat/reminders/reminders.js';
import type { ChatService } from '../chat/threads/chat-service.js';
import { agentChatRoutes } from '../mcp/agent-chat-routes.js';
import { chatTools } from '../mcp/chat-tools.js';
import { mcpRoutes } from '../mcp/mcp-routes.js';
import type { CallerLookup } from '../mcp/tool-caller.js';
import type { Domain } from './domain.js';

export interface AgentToolsWiringDeps {
  app: FastifyInstance;
  chat: ChatService;
  asks: AskService;
  reminders: ReminderService;
  /** Who calls: agents from the agents domain, task turns and task output from the tasks domain. */
  supervisor: Pick<Supervisor, 'has' | 'currentName'>;
  tasks: Pick<CallerLookup, 'taskTurn' | 'taskOutput'>;
  enabled(): boolean;
}

/**
 * The agents' Leo Chat tools, over MCP and as JSON routes. Wired after chat and tasks: a caller is resolved against
 * both (a persistent task's turn files the agent's output under the run, in the owner's thread).
 */
export async function wireAgentTools(d: AgentToolsWiringDeps): Promise<Domain> {
  const callers: CallerLookup = {
    agentExists: (a) => d.supervisor.has(a),
    currentName: (a) => d.supervisor.currentName(a),
    taskTurn: (a) => d.tasks.taskTurn(a),
    taskOutput: (thread, task, runId) => d.tasks.taskOutput(thread, task, runId),
  };
  const tools = chatTools(d.chat, d.asks, d.reminders, callers);
  await d.app.register(mcpRoutes, { tools, lookup: callers, enabled: d.enabled });
  await d.app.register(agentChatRoutes, { tools, lookup: callers, enabled: d.enabled });
  return {};
}
