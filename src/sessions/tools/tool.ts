import type { z } from 'zod';

/** What a built-in tool gets besides its arguments. */
export interface ToolContext {
  /** The agent's workspace, as given; tools resolve it themselves (see resolveInWorkspace). */
  workspace: string;
  /** The agent's environments, as its tmux session gets them: a command the agent runs sees the same variables. */
  env: Record<string, string>;
  /** Roots no tool may read under even when they lie inside the workspace ($LEO_HOME/state). */
  deniedRoots: readonly string[];
  /** Aborted when the turn is cancelled or runs out of time: a tool stops what it is doing and returns. */
  signal: AbortSignal;
  /** Live output while the tool runs (tool.chunk). */
  output(content: string): void;
}

export interface ToolOutcome {
  /** The tool message the model reads. */
  content: string;
  success: boolean;
}

export interface Tool<P extends z.ZodType = z.ZodType> {
  name: string;
  description: string;
  params: P;
  run(args: z.output<P>, ctx: ToolContext): Promise<ToolOutcome>;
}

/** Keeps each tool's `run` typed by its own params while the list holds them all as plain `Tool`. */
export function defineTool<P extends z.ZodType>(tool: Tool<P>): Tool {
  return tool as unknown as Tool;
}

/** A refusal or failure meant for the model to read, not a bug: its message becomes the tool result. */
export class ToolError extends Error {}
