import { monotonicFactory } from 'ulid';

/**
 * ULIDs that sort in creation order even within one millisecond (and under a frozen test clock), so "ORDER BY id"
 * is creation order everywhere.
 */
export const newId: (now: number) => string = monotonicFactory();
