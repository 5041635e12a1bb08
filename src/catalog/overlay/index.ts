// The overlay: REST-only types and properties, the Lifecycle Manager's actions, and legal ranges.
// Every other operation is defined with its handler (src/operations/) and given to the catalog
// when it loads.
import type { Overlay, TypeOverlay } from '../overlay-format.js';
import { lifecycleOperations, lifecycleTypes } from './lifecycle.js';
import { ranges } from './ranges.js';
import { restOnlyPatches, restOnlyTypes } from './rest-only.js';
import { versionTypes } from './versions.js';

function merge(): Record<string, TypeOverlay> {
  const patches: Record<string, TypeOverlay> = {};
  for (const [type, patch] of Object.entries(restOnlyPatches)) patches[type] = { ...patch };
  for (const [type, ops] of Object.entries(lifecycleOperations)) {
    const patch = (patches[type] ??= {});
    patch.operations = [...(patch.operations ?? []), ...ops];
  }
  for (const [type, byProp] of Object.entries(ranges)) (patches[type] ??= {}).ranges = byProp;
  return patches;
}

export const overlay: Overlay = { types: { ...restOnlyTypes, ...lifecycleTypes, ...versionTypes }, patches: merge() };
