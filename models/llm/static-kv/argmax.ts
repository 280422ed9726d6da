/** The index of the largest value, the first on ties (as transformers.js's greedy sampler picks). */
export function argmaxOf(x: ArrayLike<number>): number {
  let best = 0;
  for (let i = 1; i < x.length; i++) if (x[i]! > x[best]!) best = i;
  return best;
}
