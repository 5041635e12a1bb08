// Domain as code in the typed client: discover a live domain as a model, plan a model against it,
// apply it. HTTP only, through AppserverClient.
export { type DiscoverOptions, type Discovered, discover, variablesText, writeModel } from './discover.js';
export { type ReadLiveOptions, addRealm, readLive } from './live.js';
export type { Node, Place, Problem } from './tree.js';
export { type ApplyOptions, type ApplyResult, ApplyError, apply } from './apply.js';
export { type Change, type Plan, type PlanOptions, type PropChange, plan } from './plan.js';
export { type ReadModel, type Substitutions, parseVariables, readModel } from './read.js';
export { placeText, problemText } from './tree.js';
