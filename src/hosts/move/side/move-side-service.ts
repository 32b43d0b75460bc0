import { SourceSide } from './source-side.js';
import type { MoveSideDeps } from './side-deps.js';
import { TargetSide } from './target-side.js';

/**
 * A daemon's part in the moves and copies a hub runs (issue 32), keyed by the move's id, with its working folder under
 * <state>/moves/<id>/: the source's side of an agent leaving and the target's side of one arriving. The side routes
 * (move-side-routes.ts) and the hub's own MoveSide (local-move-side.ts) call it.
 */
export class MoveSideService {
  readonly source: SourceSide;
  readonly target: TargetSide;

  constructor(deps: MoveSideDeps) {
    this.source = new SourceSide(deps);
    this.target = new TargetSide(deps);
  }
}
