// Small charts drawn as SVG (no chart library: a polyline is all a sparkline needs).
import { html } from './lib.js';

/** How many samples a chart keeps. */
export const HISTORY = 60;

/** A line of the last values, scaled to its own range. */
export function Sparkline({ values, label }) {
  const w = 160;
  const hgt = 36;
  const finite = values.filter((v) => typeof v === 'number' && Number.isFinite(v));
  if (finite.length < 2) return html`<svg class="spark" width=${w} height=${hgt} role="img" aria-label=${`${label}: not enough samples yet`}></svg>`;
  const min = Math.min(...finite);
  const max = Math.max(...finite);
  const span = max - min || 1;
  const step = w / (HISTORY - 1);
  const start = HISTORY - finite.length;
  const points = finite.map((v, i) => `${((start + i) * step).toFixed(1)},${(hgt - 2 - ((v - min) / span) * (hgt - 4)).toFixed(1)}`).join(' ');
  return html`<svg class="spark" width=${w} height=${hgt} role="img" aria-label=${`${label}, last ${finite.length} samples`} data-chart=${label}>
    <polyline fill="none" stroke="currentColor" stroke-width="1.5" points=${points} />
  </svg>`;
}
