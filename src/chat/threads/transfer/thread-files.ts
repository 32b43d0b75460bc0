import fs from 'node:fs';
import path from 'node:path';
import type { z } from 'zod';
import { digestMismatch, fileDigest } from '../../../core/file-digest.js';
import type { PackPart } from '../../../wire/agent-pack.js';
import type { ThreadManifest } from '../../../wire/thread-pack.js';

/** A packed thread the target cannot take in: a file missing, cut or changed on its way, or not what it should hold. */
export class ThreadPackError extends Error {
  constructor(file: string, why: string) {
    super(`thread file ${file} ${why}`);
  }
}

/** The file `name` written in `dir`, described by its size and sha256. */
export async function describeFile(dir: string, name: string): Promise<PackPart> {
  return { name, ...(await fileDigest(path.join(dir, name))) };
}

/** Checks every file the manifest names against its size and sha256 before any is read. */
export async function verifyFiles(dir: string, manifest: ThreadManifest): Promise<void> {
  for (const want of manifest.files) {
    const why = await digestMismatch(path.join(dir, want.name), want);
    if (why) throw new ThreadPackError(want.name, why);
  }
}

/** One row per line, each checked against `schema`; a file the manifest does not name is refused, never read. */
export function readLines<T>(dir: string, manifest: ThreadManifest, name: string, schema: z.ZodType<T>): T[] {
  return readListed(dir, manifest, name)
    .split('\n')
    .filter((line) => line !== '')
    .map((line, i) => parsed(schema, line, `${name} line ${i + 1}`));
}

/** A whole-file JSON value checked against `schema`. */
export function readJson<T>(dir: string, manifest: ThreadManifest, name: string, schema: z.ZodType<T>): T {
  return parsed(schema, readListed(dir, manifest, name), name);
}

/** Rows as JSON lines, what readLines reads back. */
export function jsonLines(rows: readonly unknown[]): string {
  return rows.map((r) => `${JSON.stringify(r)}\n`).join('');
}

/** Whether the manifest names `name` (a packed attachment's file is read only then). */
export function listed(manifest: ThreadManifest, name: string): boolean {
  return manifest.files.some((f) => f.name === name);
}

function readListed(dir: string, manifest: ThreadManifest, name: string): string {
  if (!listed(manifest, name)) throw new ThreadPackError(name, 'is not in the manifest');
  return fs.readFileSync(path.join(dir, name), 'utf8');
}

function parsed<T>(schema: z.ZodType<T>, text: string, where: string): T {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new ThreadPackError(where, 'is not JSON');
  }
  const r = schema.safeParse(value);
  if (!r.success) throw new ThreadPackError(where, `is not a packed row: ${r.error.issues[0]?.message ?? 'invalid'}`);
  return r.data;
}
