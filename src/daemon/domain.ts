/**
 * What the daemon drives of a domain's wiring; each wire*() returns one (empty where there is nothing to drive). Each
 * phase runs over the domains in the order they were built: start once the listeners are up, release before the
 * server closes (what holds a request open lets go), stop after it has closed (work under way finishes). Stop does not
 * run in reverse on purpose: the agents' tmux client closes first, so a chat delivery still waiting on an input box
 * fails at once instead of holding chat's drain for up to its five-minute wait.
 */
export interface Domain {
  start?(): Promise<void> | void;
  release?(): Promise<void>;
  stop?(): Promise<void>;
}
