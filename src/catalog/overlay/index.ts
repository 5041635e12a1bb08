// The overlay: REST-only types and properties, the operations table, and legal ranges.
import type { Overlay, TypeOverlay } from '../overlay-format.js';
import { lifecycleOperations, lifecycleTypes } from './lifecycle.js';
import { operations } from './operations.js';
import { ranges } from './ranges.js';
import { restOnlyPatches, restOnlyTypes } from './rest-only.js';
import { versionTypes } from './versions.js';

function merge(): Record<string, TypeOverlay> {
  const patches: Record<string, TypeOverlay> = {};
  for (const [type, patch] of Object.entries(restOnlyPatches)) patches[type] = { ...patch };
  for (const [type, ops] of [...Object.entries(operations), ...Object.entries(lifecycleOperations)]) {
    const patch = (patches[type] ??= {});
    patch.operations = [...(patch.operations ?? []), ...ops];
  }
  for (const [type, byProp] of Object.entries(ranges)) (patches[type] ??= {}).ranges = byProp;
  return patches;
}

export const overlay: Overlay = { types: { ...restOnlyTypes, ...lifecycleTypes, ...versionTypes }, patches: merge() };
