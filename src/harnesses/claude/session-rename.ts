/**
 * A transcript's text with session `from`'s id changed to `to` in every line that records it (`sessionId`). Lines
 * that record another id or none, and any that are not a JSON object, are kept byte for byte; what the conversation
 * itself says (prompts, tool calls, their results) is never rewritten.
 */
export function renameSession(text: string, from: string, to: string): string {
  if (from === to) return text;
  return text
    .split('\n')
    .map((line) => {
      if (!line.includes(from)) return line;
      let entry: unknown;
      try {
        entry = JSON.parse(line);
      } catch {
        return line;
      }
      if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) return line;
      const fields = entry as Record<string, unknown>;
      return fields.sessionId === from ? JSON.stringify({ ...fields, sessionId: to }) : line;
    })
    .join('\n');
}
