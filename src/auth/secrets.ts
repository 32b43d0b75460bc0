import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** 256 random bits, base64url, behind a prefix that tells a human which kind of token they are looking at. */
export function newToken(prefix: string): string {
  return `${prefix}_${randomBytes(32).toString('base64url')}`;
}

export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** Compares digests rather than the strings so the comparison time depends on neither value's length or content. */
export function sameSecret(given: string, expected: string): boolean {
  const a = createHash('sha256').update(given, 'utf8').digest();
  const b = createHash('sha256').update(expected, 'utf8').digest();
  return timingSafeEqual(a, b);
}
