import { z } from 'zod';

/**
 * Who is calling. `socket` is anyone who can open the 0600 unix socket: the filesystem is the access control.
 * `anonymous` is a TCP caller on a public route.
 */
export const TokenKind = z.enum(['operator', 'device', 'agent', 'client', 'peer']);
export type TokenKind = z.infer<typeof TokenKind>;

export type Principal =
  | { kind: 'socket' }
  | { kind: 'anonymous' }
  | { kind: 'operator' }
  | { kind: 'agent' }
  /** fleet: granted fleet writes at pairing (or later); see Access.fleet. */
  | { kind: 'device'; id: string; name: string; fleet: boolean }
  | { kind: 'client'; id: string; name: string; canPost: boolean }
  /** A hub this daemon was paired with as a host (issue 31): works on agents as the operator does, manages nothing. */
  | { kind: 'peer'; id: string; name: string };
