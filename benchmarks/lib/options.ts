/**
 * A benchmark's command line: each option declared once with its default and what its text must be, parsed and
 * checked in one call (an unknown option or a bad value throws with the option's name).
 *
 *   const o = options({ hosts: int(10), rates: ints([100, 500]), live: int(25, 0), 'cpu-prof': flag(), json: text() });
 *   o.hosts; // number
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';

export interface Option<T> {
  readonly type: 'string' | 'boolean';
  readonly default?: string | boolean;
  read(name: string, raw: string | boolean | undefined): T;
}

function integer(name: string, raw: string, min: number): number {
  const v = Number(raw);
  if (raw.trim() === '' || !Number.isInteger(v) || v < min)
    throw new Error(`--${name} wants ${min === 1 ? 'a positive integer' : `an integer ≥ ${min}`}`);
  return v;
}

/** An integer of at least `min`. */
export const int = (fallback: number, min = 1): Option<number> => ({
  type: 'string',
  default: String(fallback),
  read: (name, raw) => integer(name, String(raw), min),
});

/** Comma-separated integers of at least `min` each. */
export const ints = (fallback: number[], min = 1): Option<number[]> => ({
  type: 'string',
  default: fallback.join(','),
  read: (name, raw) =>
    String(raw)
      .split(',')
      .map((s) => integer(name, s, min)),
});

function real(name: string, raw: string | boolean | undefined, ok: (v: number) => boolean, wants: string): number {
  const v = Number(raw);
  if (raw === '' || !ok(v)) throw new Error(`--${name} wants ${wants}`);
  return v;
}

/** A number above 0, fractions allowed. */
export const above0 = (fallback: number): Option<number> => ({
  type: 'string',
  default: String(fallback),
  read: (name, raw) => real(name, raw, (v) => v > 0, 'a positive number'),
});

/** A number of 0 or more, fractions allowed (0 turning something off). */
export const atLeast0 = (fallback: number): Option<number> => ({
  type: 'string',
  default: String(fallback),
  read: (name, raw) => real(name, raw, (v) => v >= 0, 'a number ≥ 0'),
});

/** A switch, off unless given. */
export const flag = (): Option<boolean> => ({ type: 'boolean', default: false, read: (_name, raw) => raw === true });

/** Free text: `fallback` unless given. */
export function text(): Option<string | undefined>;
export function text(fallback: string): Option<string>;
export function text(fallback?: string): Option<string | undefined> {
  return { type: 'string', default: fallback, read: (_name, raw) => (typeof raw === 'string' ? raw : undefined) };
}

type Values<S> = { [K in keyof S]: S[K] extends Option<infer T> ? T : never };

/** Parses this process's arguments by `spec`. */
export function options<S extends Record<string, Option<unknown>>>(spec: S): Values<S> {
  const entries = Object.entries(spec);
  const declared: ParseArgsConfig['options'] = Object.fromEntries(
    entries.map(([name, o]) => [
      name,
      o.default === undefined ? { type: o.type } : { type: o.type, default: o.default },
    ]),
  );
  // No option is declared `multiple`, so no value is an array.
  const values = parseArgs({ options: declared }).values as Record<string, string | boolean | undefined>;
  return Object.fromEntries(entries.map(([name, o]) => [name, o.read(name, values[name])])) as Values<S>;
}
