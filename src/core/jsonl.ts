/**
 * The JSON object on one JSONL line, or null for a blank line, a line that is not an object, or one that does not
 * parse (a torn write, or a line cut by a read window).
 */
export function jsonlObject(raw: string): object | null {
  const line = raw.trim();
  if (!line.startsWith('{')) return null;
  try {
    return JSON.parse(line) as object;
  } catch {
    return null;
  }
}

/** The JSON objects of JSONL lines, in order, skipping what jsonlObject skips. */
export function* jsonlObjects(lines: Iterable<string>): Generator<object> {
  for (const raw of lines) {
    const value = jsonlObject(raw);
    if (value) yield value;
  }
}
