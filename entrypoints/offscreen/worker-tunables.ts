import { tunableOverrides, type TunableOverrides } from '../../core/tunables';

/** What both workers' protocols accept: the owner's overrides, applied over the worker's defaults. */
export interface TunablesMessage {
  type: 'tunables';
  overrides: TunableOverrides;
}

/** This document's current overrides, for a worker (sent after every change this document applies). */
export function tunablesMessage(): TunablesMessage {
  return { type: 'tunables', overrides: tunableOverrides() };
}

/** The first message of every new worker (the first one and each replacement): none while everything is default. */
export function tunablesGreeting(): TunablesMessage | null {
  const message = tunablesMessage();
  return Object.keys(message.overrides).length ? message : null;
}
