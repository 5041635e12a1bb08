// The overlay: REST-only types and properties, and legal ranges. Operations are not part of it:
// they are defined with their handlers (src/operations/) and given to the catalog when it loads.
import type { Overlay, TypeOverlay } from '../overlay-format.js';
import { ranges } from './ranges.js';
import { restOnlyPatches, restOnlyTypes } from './rest-only.js';

function merge(): Record<string, TypeOverlay> {
  const patches: Record<string, TypeOverlay> = {};
  for (const [type, patch] of Object.entries(restOnlyPatches)) patches[type] = { ...patch };
  for (const [type, byProp] of Object.entries(ranges)) (patches[type] ??= {}).ranges = byProp;
  return patches;
}

export const overlay: Overlay = { types: restOnlyTypes, patches: merge() };
