/**
 * What the daemon drives of a domain's wiring. Each phase runs over the domains in the order they were built: start
 * once the listeners are up, release before the server closes (what holds a request open lets go), stop after it has
 * closed (work under way finishes).
 */
export interface Domain {
  start?(): Promise<void> | void;
  release?(): Promise<void>;
  stop?(): Promise<void>;
}
