import { applyOverrides, type TunableOverrides } from './registry';

/** The owner's broadcast: its overrides and a version that grows with every change. */
export interface TunablesUpdate {
  version: number;
  overrides: TunableOverrides;
}

/**
 * What a receiving context (offscreen document, side panel, popup) does with the owner's updates: apply each one
 * unless a newer one was applied already (the start-up pull and a broadcast can arrive in either order). Returns the
 * entries this context refused (its registry does not know them or their value), for a warning.
 */
export function createTunablesReceiver(): (update: TunablesUpdate) => string[] {
  let applied = -1;
  return (update) => {
    if (update.version < applied) return [];
    applied = update.version;
    return applyOverrides(update.overrides);
  };
}
