import type { AgentRecord } from '../agents/agent-record.js';
import { agentEnv, resolveAgent } from '../agents/resolve.js';
import type { Config } from '../config/schema.js';
import { chatEngineFor } from '../harnesses/index.js';
import type { ChatAgent } from './session-service.js';

/**
 * The agent as the chat endpoint answers for it: whether its template turns the endpoint on, its engine (`openai` by
 * default, `claude-cli` for claude agents unless the template says otherwise), its workspace and its environments
 * (where the API key lives), with the template's chat settings over the agent's model.
 */
export function chatAgentOf(record: AgentRecord, config: Config, home: string): ChatAgent {
  const r = resolveAgent(record, config, home);
  const chat = record.template ? config.templates[record.template]?.chat : undefined;
  const env = agentEnv(record, r, config);
  const apiKey = chat?.api_key_env ? env[chat.api_key_env] : undefined;
  return {
    name: record.name,
    chatEnabled: r.chatEnabled,
    engine: chatEngineFor(chat?.engine, r.harness),
    workspace: r.workspace,
    env,
    allowedTools: r.permissions.allow ?? [],
    defaults: {
      model: chat?.model ?? r.model,
      ...(chat?.base_url ? { baseUrl: chat.base_url } : {}),
      ...(apiKey ? { apiKey } : {}),
      ...(chat?.temperature !== undefined ? { temperature: chat.temperature } : {}),
      ...(chat?.max_tokens !== undefined ? { max_tokens: chat.max_tokens } : {}),
      ...(chat?.reasoning ? { reasoning: chat.reasoning } : {}),
      ...(chat?.price ? { price: chat.price } : {}),
      ...(chat?.budget ? { budget: chat.budget } : {}),
      maxIterations: chat?.max_iterations ?? 25,
      maxDurationMs: chat?.max_duration ?? 600_000,
    },
  };
}
