/**
 * Lenient reads of JSON Leo does not own (the agent CLIs' private transcripts, which change between versions): a value
 * of an unexpected type reads as absent, and nothing throws. Plain guards rather than zod: the pool threads read these
 * transcripts, and zod loaded in a thread costs it about 10 MB (docs/DECISIONS.md, the idle memory section).
 */
export type Fields = Readonly<Record<string, unknown>>;

/** A JSON object (not an array, not null), else undefined. */
export function fields(v: unknown): Fields | undefined {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Fields) : undefined;
}

export function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

export function bool(v: unknown): boolean | undefined {
  return typeof v === 'boolean' ? v : undefined;
}

export function num(v: unknown): number | undefined {
  return typeof v === 'number' ? v : undefined;
}

export function list(v: unknown): readonly unknown[] | undefined {
  return Array.isArray(v) ? v : undefined;
}

/** A token count: a non-negative integer, else 0. */
export function count(v: unknown): number {
  return Number.isInteger(v) && (v as number) >= 0 ? (v as number) : 0;
}
