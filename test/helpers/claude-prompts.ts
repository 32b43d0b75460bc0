// Permission prompts and questions cards with a real Claude agent: the scripted tool calls that raise them and the
// views of the thread and the model requests the end-to-end prompt tests read.
import { isAgentTurn, lastUserMessage, mentions, toolResult, type ReplyScript } from './anthropic-server.js';
import type { ChatMessage, ClaudeAgent } from './claude-agent.js';
import { request } from './http.js';
import { until } from './wait.js';

export interface ToolCall {
  name: string;
  id: string;
  input: unknown;
}

/** A Bash call that needs Claude's permission (touch does; echo would not). */
export const touch = (name: string): ToolCall => ({
  name: 'Bash',
  id: `toolu_touch_${name}`,
  input: { command: `touch ${name}.txt`, description: `Create ${name}.txt` },
});

/** An AskUserQuestion call with these questions. */
export const askQuestions = (id: string, questions: unknown[]): ToolCall => ({
  name: 'AskUserQuestion',
  id,
  input: { questions },
});

/** A message that mentions a scenario's marker gets its tool call; the tool's result gets "<marker> over". */
export function toolScript(scenarios: Record<string, ToolCall>): ReplyScript {
  return (req, { sideRequest }) => {
    if (sideRequest) return undefined;
    const last = lastUserMessage(req.body);
    for (const [marker, tool] of Object.entries(scenarios)) {
      if (toolResult(last, tool.id)) return { text: `${marker} over` };
      if (mentions(last, marker)) return { toolUse: tool };
    }
    return undefined;
  };
}

export function promptViews(c: ClaudeAgent, agent: string, scenarios: Record<string, ToolCall>) {
  const message = async (id: string) => (await c.thread()).find((x) => x.id === id);
  return {
    message,
    answer: (id: string, body: unknown) =>
      request(c.d.tcp, 'POST', `/api/v1/chat/${agent}/messages/${id}/answer`, { token: c.token, body }),
    /** Starts a scenario and returns the open prompt (or card) the hook posted for its tool call. */
    async begin(marker: string, kind: 'permission' | 'ask'): Promise<ChatMessage> {
      const seen = new Set((await c.thread()).map((m) => m.id));
      const m = await c.send(`${marker}: do the thing`);
      await c.delivered(m.id);
      return c.withPane(
        until(
          `the ${kind} message for ${marker}`,
          async () => (await c.thread()).find((x) => !seen.has(x.id) && x.kind === kind && x.state === 'open'),
          30_000,
          200,
        ),
      );
    },
    /** The tool_result block of the model request that carries a scenario's result back, once Claude has one. */
    async resultOf(marker: string): Promise<any> {
      const id = scenarios[marker]!.id;
      const r = await c.withPane(
        c.api.waitForRequest(
          (x) => x.body?.stream === true && isAgentTurn(x.body) && toolResult(lastUserMessage(x.body), id),
          30_000,
        ),
      );
      return toolResult(lastUserMessage(r.body), id);
    },
    settled: (id: string) =>
      until(
        `message ${id} to settle`,
        async () => {
          const m = await message(id);
          return m && m.state !== 'open' ? m : undefined;
        },
        15_000,
        200,
      ),
  };
}

export const resultText = (r: any): string =>
  typeof r.content === 'string' ? r.content : JSON.stringify(r.content ?? '').replace(/\\n/g, '\n');
