import { z } from 'zod';
import { bash } from './bash.js';
import { listDir } from './list-dir.js';
import { readFile } from './read-file.js';
import { sleep } from './sleep.js';
import { ToolError } from './tool.js';
import type { Tool, ToolContext, ToolOutcome } from './tool.js';

export type { Tool, ToolContext, ToolOutcome } from './tool.js';

export const builtinTools: readonly Tool[] = [listDir, readFile, bash, sleep];

/** A tool in the OpenAI `tools` request field. */
export interface OpenAiToolSchema {
  type: 'function';
  function: { name: string; description: string; parameters: Record<string, unknown> };
}

export function toolSchemas(tools: readonly Tool[]): OpenAiToolSchema[] {
  return tools.map((t) => {
    // The input side: what the model may send, so fields with defaults stay optional.
    const { $schema: _, ...parameters } = z.toJSONSchema(t.params, { io: 'input' });
    return { type: 'function', function: { name: t.name, description: t.description, parameters } };
  });
}

/**
 * Runs one tool call as the model wrote it. Never throws: unknown tools, bad arguments and tool failures all come back
 * as an unsuccessful outcome whose content tells the model what went wrong, so the loop can go on.
 */
export async function runTool(
  tools: readonly Tool[],
  name: string,
  rawArguments: string,
  ctx: ToolContext,
): Promise<ToolOutcome> {
  const fail = (message: string): ToolOutcome => ({ content: `Error: ${message}`, success: false });
  const tool = tools.find((t) => t.name === name);
  if (!tool) return fail(`unknown tool ${name}; available: ${tools.map((t) => t.name).join(', ')}`);
  let json: unknown;
  try {
    // Models send an empty string for a call without arguments.
    json = JSON.parse(rawArguments.trim() || '{}');
  } catch {
    return fail(`the arguments of ${name} are not valid JSON: ${rawArguments}`);
  }
  const args = tool.params.safeParse(json);
  if (!args.success) return fail(`invalid arguments for ${name}:\n${z.prettifyError(args.error)}`);
  try {
    return await tool.run(args.data, ctx);
  } catch (err) {
    // A ToolError is a refusal worded for the model; anything else is still reported, never thrown into the loop.
    return fail(err instanceof ToolError ? err.message : `${name} failed: ${(err as Error).message}`);
  }
}
